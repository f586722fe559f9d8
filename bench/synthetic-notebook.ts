/** The synthetic notebook of `bench/analysis_speed.ts` and `bench/analysis_golden.sh`. */
import type { CellInput } from '../src/analysis/types';

/**
 * A varied n-cell notebook: imports, array work, SciPy, loops, pandas, markdown, magics. Every
 * name a cell reads is defined by an earlier cell (the chain reads the arrays the cell before it
 * made; the plot reads that chain's result), so the array rules see real sizes and dtypes.
 */
export function syntheticNotebook(n: number): CellInput[] {
  const templates: ((i: number) => [CellInput['kind'], string])[] = [
    i => ['markdown', `## Step ${i}\nSome prose about the step, with a list:\n- one\n- two\n`],
    i => ['code', `x${i} = np.random.rand(4_000_000).astype(np.float32)\nz${i} = np.linspace(0, 1, 4_000_000, dtype=np.float32)\n`],
    i => ['code', `y${i} = np.sqrt(x${i - 1} * x${i - 1} + z${i - 1} * z${i - 1}) * np.exp(-x${i - 1})\n`],
    i => ['code', `m${i} = np.random.rand(2048, 2048)\nsmooth${i} = ndi.gaussian_filter(m${i}, sigma=2.0)\nspec${i} = np.abs(np.fft.fft2(m${i})) ** 2\n`],
    i => ['code', `total = 0.0\nfor k in range(1000):\n    total += k * ${i}\nprint(total)\n`],
    i => ['code', `df${i} = pd.DataFrame({"a": np.arange(1000), "b": np.arange(1000) % 7})\ng${i} = df${i}.groupby("b").a.sum()\n`],
    i => ['code', `%%time\ns${i} = np.sort(np.random.rand(1_000_000))\n`],
    i => ['code', `def f${i}(a, b):\n    """helper ${i}"""\n    if a > b:\n        return a - b\n    return [v * 2 for v in range(b)]\n\nr${i} = f${i}(3, 4)\n`],
    i => ['code', `plt.plot(y${i - 6}[:1000])\nplt.title("step ${i}")\n`]
  ];
  const cells: CellInput[] = [
    {
      id: 'c0',
      index: 0,
      kind: 'code',
      source: 'import numpy as np\nimport pandas as pd\nimport scipy.ndimage as ndi\nimport matplotlib.pyplot as plt\n'
    }
  ];
  for (let i = 1; i < n; i++) {
    const [kind, source] = templates[i % templates.length](i);
    cells.push({ id: `c${i}`, index: i, kind, source });
  }
  return cells;
}
