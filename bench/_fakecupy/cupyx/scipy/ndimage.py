from scipy.ndimage import *  # noqa: F401,F403
