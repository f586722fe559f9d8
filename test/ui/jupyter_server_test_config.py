"""Server configuration for the Galata tests: a real `jupyter lab` with a real kernel.

Galata's helper turns off the token, serves a fresh temporary root directory and
keeps the server deterministic (no announcements, no news, no update checks).
"""

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821 (c is injected by the config loader)
c.ServerApp.port = 8888  # noqa: F821
c.LabApp.expose_app_in_browser = True  # noqa: F821
