# h_montecarlo: Monte Carlo option pricing and portfolio risk
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# The one change: files it writes and reads went to /tmp/ (cell 13);
# here they go to the working directory, which bench/run_notebooks.py makes a fresh temporary
# one per run, so runs cannot read each other's files.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Monte Carlo option pricing and portfolio risk

# %%
import numpy as np
import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from scipy.stats import norm

rng = np.random.default_rng(11)
n_paths, n_steps = 100_000, 252
S0, K, r, sigma, T = 100.0, 105.0, 0.03, 0.2, 1.0
dt = T / n_steps

# %%
Z = rng.standard_normal((n_paths, n_steps))
log_inc = (r - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * Z
paths = S0 * np.exp(np.cumsum(log_inc, axis=1))
print(paths.shape, paths.dtype, f"mean terminal {paths[:, -1].mean():.3f}")

# %%
disc = np.exp(-r * T)
payoff = np.maximum(paths[:, -1] - K, 0.0)
price_call = disc * payoff.mean()
stderr = disc * payoff.std(ddof=1) / np.sqrt(n_paths)
print(f"European call {price_call:.4f} +/- {1.96 * stderr:.4f}")

# %%
d1 = (np.log(S0 / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
d2 = d1 - sigma * np.sqrt(T)
bs = S0 * norm.cdf(d1) - K * np.exp(-r * T) * norm.cdf(d2)
print(f"Black-Scholes {bs:.4f}, MC error {price_call - bs:+.4f}")

# %% [markdown]
# Path-dependent payoffs

# %%
avg = paths.mean(axis=1)
asian = disc * np.maximum(avg - K, 0.0).mean()
hit = paths.max(axis=1) > 130.0
up_out = disc * np.where(hit, 0.0, payoff).mean()
{"asian": asian, "up_and_out": up_out, "knocked_out": hit.mean()}

# %% [markdown]
# Portfolio of correlated assets: VaR, ES, drawdowns

# %%
n_assets, n_sims, horizon = 8, 50_000, 20
corr = 0.3 + 0.7 * np.eye(n_assets)
vols = rng.uniform(0.1, 0.4, size=n_assets)
cov = np.outer(vols, vols) * corr / 252
L = np.linalg.cholesky(cov)
w = np.full(n_assets, 1.0 / n_assets)
daily = rng.standard_normal((n_sims, horizon, n_assets)) @ L.T
port = daily @ w
wealth = np.cumprod(1.0 + port, axis=1)
pnl = wealth[:, -1] - 1.0
var95, var99 = -np.percentile(pnl, [5, 1])
es95 = -pnl[pnl <= -var95].mean()
print(f"VaR95 {var95:.4%}  VaR99 {var99:.4%}  ES95 {es95:.4%}")

# %%
peak_w = np.maximum.accumulate(wealth, axis=1)
drawdown = 1.0 - wealth / peak_w
max_dd = drawdown.max(axis=1)
np.percentile(max_dd, [50, 90, 99])

# %% [markdown]
# Stress scenarios

# %%
scenarios = {"calm": 0.5, "base": 1.0, "stress": 2.0, "crisis": 3.0}
rows = []
for name, mult in scenarios.items():
    s = sigma * mult
    Zs = rng.standard_normal((n_paths // 4, n_steps))
    ST = S0 * np.exp(((r - 0.5 * s ** 2) * dt + s * np.sqrt(dt) * Zs).sum(axis=1))
    price = disc * np.maximum(ST - K, 0.0).mean()
    loss99 = np.percentile(S0 - ST, 99)
    rows.append({"scenario": name, "vol": s, "price": price, "loss99": loss99})
table = pd.DataFrame(rows)
table["price_ratio"] = table["price"] / table.loc[1, "price"]
table

# %%
bump = 0.01 * S0
up = disc * np.maximum(paths[:, -1] * (S0 + bump) / S0 - K, 0.0).mean()
dn = disc * np.maximum(paths[:, -1] * (S0 - bump) / S0 - K, 0.0).mean()
delta = (up - dn) / (2 * bump)
gamma = (up - 2 * price_call + dn) / bump ** 2
print(f"delta {delta:.4f} (BS {norm.cdf(d1):.4f}), gamma {gamma:.5f}")

# %%
cum_pnl = np.cumsum(port, axis=1)
q = np.percentile(cum_pnl, [1, 50, 99], axis=0)
fig, ax = plt.subplots(1, 2, figsize=(10, 4))
ax[0].plot(paths[:40].T, lw=0.5)
ax[1].fill_between(np.arange(horizon), q[0], q[2], alpha=0.3)
ax[1].plot(q[1])
fig.savefig("s8h2_mc.png")
plt.close(fig)
