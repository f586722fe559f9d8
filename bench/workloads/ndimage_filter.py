# Gaussian and median filters of a 4096 x 4096 image.
# %% setup
import numpy as np
import scipy.ndimage as ndi

rng = np.random.default_rng(6)
img = rng.random((4096, 4096), dtype=np.float32)
# %% cell
smooth = ndi.gaussian_filter(img, sigma=3.0)
denoised = ndi.median_filter(img, size=3)
