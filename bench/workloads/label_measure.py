# Connected components of a thresholded 4096 x 4096 image, then each component's size
# (ndimage.label's tuple unpacked; the measurement's index made a device array).
# %% setup
import numpy as np
import scipy.ndimage as ndi

rng = np.random.default_rng(4)
img = ndi.gaussian_filter(rng.random((4096, 4096)), 4.0)
# %% cell
mask = img > img.mean()
labels, n = ndi.label(mask)
sizes = ndi.sum(mask, labels, range(1, n + 1))
