# 2-D FFT of a 8192 x 8192 complex64 field and its power spectrum.
# %% setup
import numpy as np

rng = np.random.default_rng(3)
field = (rng.standard_normal((8192, 8192)) + 1j * rng.standard_normal((8192, 8192))).astype(np.complex64)
# %% cell
spectrum = np.fft.fft2(field)
power = np.abs(spectrum) ** 2
