/**
 * cupyx.scipy.ndimage's host parameters (NDIMAGE_HOST_PARAMETERS), pinned against the signatures
 * and bodies of cupyx 14.2.0 (cupy-cuda12x 14.2.0 wheel, cupyx/scipy/ndimage/*.py): an array read
 * only in one of them stays on the host, one read as data goes to the device.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { NDIMAGE_HOST_PARAMETERS } from '../../src/analysis/rules/arrays/cupy-rewrite';
import { cellsOf, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

describe('NDIMAGE_HOST_PARAMETERS', () => {
  it('follows cupyx 14.2.0\'s signatures', () => {
    // _interpolation.py: shift(input, shift, output=None, order=3, mode, cval, prefilter);
    // `_fix_sequence_arg(shift, input.ndim, 'shift', float)`; output (2) is an array
    expect(NDIMAGE_HOST_PARAMETERS.get('shift')).toEqual({ positions: [1, 3, 4, 5, 6], keywords: ['shift', 'order', 'mode', 'cval', 'prefilter'] });
    // _interpolation.py: affine_transform(input, matrix, offset=0.0, output_shape=None, output=None, ...):
    // `matrix.astype(...)` feeds a kernel (device), `_fix_sequence_arg(offset, ..., float)` (host)
    expect(NDIMAGE_HOST_PARAMETERS.get('affine_transform')?.positions).toEqual([2, 3, 5, 6, 7, 8]);
    // _filters.py: sobel(input, axis=-1, output=None, mode='reflect', cval=0.0): the axis is often positional
    expect(NDIMAGE_HOST_PARAMETERS.get('sobel')?.positions).toEqual([1, 3, 4]);
    // _filters.py: gaussian_filter1d(input, sigma, axis=-1, order=0, output=None, mode, cval, truncate):
    // no `radius`, no `axes` (gaussian_filter has them)
    expect(NDIMAGE_HOST_PARAMETERS.get('gaussian_filter1d')?.keywords).toEqual(['sigma', 'axis', 'order', 'mode', 'cval', 'truncate']);
    expect(NDIMAGE_HOST_PARAMETERS.get('gaussian_filter')?.keywords).toContain('radius');
    // _morphology.py: binary_opening(input, structure, iterations, output, origin, mask, ...): another
    // order than binary_erosion(input, structure, iterations, mask, output, border_value, origin, ...)
    expect(NDIMAGE_HOST_PARAMETERS.get('binary_opening')?.positions).toEqual([2, 4, 6, 7]);
    expect(NDIMAGE_HOST_PARAMETERS.get('binary_erosion')?.positions).toEqual([2, 5, 6, 7]);
    // _morphology.py: grey_erosion(input, size=None, footprint=None, structure=None, ...): size is position 1
    expect(NDIMAGE_HOST_PARAMETERS.get('grey_erosion')?.positions).toEqual([1, 5, 6, 7]);
    // _measurements.py: label's structure goes to NumPy (`cupy.asnumpy(structure)`); histogram's
    // min, max, bins make `cupy.linspace(min, max, bins + 1)`
    expect(NDIMAGE_HOST_PARAMETERS.get('label')).toEqual({ positions: [1], keywords: ['structure'] });
    expect(NDIMAGE_HOST_PARAMETERS.get('histogram')?.positions).toEqual([1, 2, 3]);
    // _distance_transform.py: `len(set(sampling))`, `float(sampling[0])`
    expect(NDIMAGE_HOST_PARAMETERS.get('distance_transform_edt')?.keywords).toContain('sampling');
  });

  it('keeps an array read only as a host parameter on the host, and copies the data', async () => {
    const result = analyzeNotebook(
      cellsOf(
        'import numpy as np\nimport scipy.ndimage as ndi\nimg = np.random.rand(4096, 4096)\nst = np.ones((3, 3), dtype=bool)\noff = np.array([1.5, -2.0])',
        'lab, n = ndi.label(img > 0.5, st)\nmoved = ndi.affine_transform(img, np.eye(2), off)\nprint(n, lab.max(), moved.sum())'
      ),
      { parser: await parser() }
    );
    const s = result.suggestions.find(x => x.cellIndex === 1);
    expect(s?.candidate).toContain('img_gpu = cp.asarray(img)');
    expect(s?.candidate).toContain('cupyx.scipy.ndimage.label(img_gpu > 0.5, st)');
    expect(s?.candidate).toContain('cupyx.scipy.ndimage.affine_transform(img_gpu, cp.eye(2), off)');
    expect(s?.candidate).not.toContain('st_gpu');
    expect(s?.candidate).not.toContain('off_gpu');
  });
});
