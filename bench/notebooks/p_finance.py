# p_finance: Equity universe: rolling risk, a momentum backtest, shrunk covariance and VaR
# Written in session 15 as a notebook the engine was not tuned on (fresh review of `fix`).
# Self-contained: it makes its own data (fixed seeds). Files go to the working directory,
# which bench/run_notebooks.py makes a fresh temporary one per run.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Equity universe: rolling risk, a momentum backtest, shrunk covariance and VaR
#
# 2000 stocks over 20 years of trading days from a 5-factor model with fat-tailed
# idiosyncratic returns; stocks list at different dates (NaN before their IPO).

# %%
import numpy as np
import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

n_days, n_assets, n_factors = 5040, 2000, 5
rng = np.random.default_rng(8128)
betas = rng.normal(0.0, 0.5, (n_assets, n_factors))
betas[:, 0] = rng.normal(1.0, 0.3, n_assets)
idio_vol = rng.uniform(0.008, 0.03, n_assets)
alpha = rng.normal(0.0002, 0.0002, n_assets)
ipo = np.where(rng.random(n_assets) < 0.3, rng.integers(0, n_days // 2, n_assets), 0)

# %%
factors = rng.standard_normal((n_days, n_factors)) * np.array([0.011, 0.006, 0.005, 0.004, 0.003])
shocks = rng.standard_t(4, (n_days, n_assets)) / np.sqrt(2.0)
rets = alpha + factors @ betas.T + shocks * idio_vol
prices = 50.0 * np.exp(np.cumsum(rets, axis=0))
prices[np.arange(n_days)[:, None] < ipo[None, :]] = np.nan
print(prices.shape, prices.dtype, f"{np.isnan(prices).mean():.2%} missing")

# %% [markdown]
# Log returns and rolling 63-day mean and volatility with cumulative sums (NaN-aware)

# %%
logret = np.diff(np.log(prices), axis=0)
valid = np.isfinite(logret)
x = np.where(valid, logret, 0.0)
w = 63
cs = np.vstack([np.zeros((1, n_assets)), np.cumsum(x, axis=0)])
cs2 = np.vstack([np.zeros((1, n_assets)), np.cumsum(x * x, axis=0)])
cn = np.vstack([np.zeros((1, n_assets)), np.cumsum(valid, axis=0)])
cnt = cn[w:] - cn[:-w]
roll_mean = (cs[w:] - cs[:-w]) / np.maximum(cnt, 1)
roll_var = ((cs2[w:] - cs2[:-w]) - cnt * roll_mean ** 2) / np.maximum(cnt - 1, 1)
roll_vol = np.sqrt(np.maximum(roll_var, 0.0) * 252)
roll_vol[cnt < w // 2] = np.nan
print(f"median annualised vol {np.nanmedian(roll_vol):.3f}, 99th {np.nanpercentile(roll_vol, 99):.3f}")

# %% [markdown]
# EWMA variance (RiskMetrics, lambda = 0.94), one day at a time

# %%
lam = 0.94
ewvar = np.empty_like(x)
ewvar[0] = np.where(valid[0], x[0] ** 2, 1e-4)
for t in range(1, x.shape[0]):
    ewvar[t] = np.where(valid[t], lam * ewvar[t - 1] + (1 - lam) * x[t] ** 2, ewvar[t - 1])
ew_vol = np.sqrt(ewvar * 252)
print(f"EWMA vol today: median {np.median(ew_vol[-1]):.3f}")

# %% [markdown]
# 12-1 momentum, cross-sectional z-score and rank, decile long-short rebalanced monthly

# %%
reb = np.arange(252, n_days - 1 - 21, 21)
mom = cs[reb - 21] - cs[reb - 252]
have = (cn[reb - 21] - cn[reb - 252]) > 200
sig = np.where(have, mom, np.nan)
z = (sig - np.nanmean(sig, axis=1, keepdims=True)) / np.nanstd(sig, axis=1, keepdims=True)
zf = np.where(np.isnan(z), -np.inf, z)
rank = np.argsort(np.argsort(-zf, axis=1), axis=1)
n_ok = np.sum(~np.isnan(z), axis=1, keepdims=True)
k = n_ok // 10
long = rank < k
short = (rank >= n_ok - k) & (rank < n_ok)
wts = 0.5 * (long.astype(np.float64) - short) / k
hold = np.repeat(wts, 21, axis=0)
fwd = x[reb[0]: reb[0] + hold.shape[0]]
strat = np.sum(hold * fwd, axis=1)
equity = np.exp(np.cumsum(strat))
dd = 1 - equity / np.maximum.accumulate(equity)
sharpe = strat.mean() / strat.std() * np.sqrt(252)
print(f"momentum L/S: Sharpe {sharpe:.2f}, max drawdown {dd.max():.2%}, {len(reb)} rebalances")

# %% [markdown]
# Covariance of the last two years, shrunk towards its diagonal; Cholesky factor

# %%
R = x[-504:]
R = R - R.mean(axis=0)
S = R.T @ R / (R.shape[0] - 1)
target = np.diag(np.diag(S))
delta = 0.3
S_shr = (1 - delta) * S + delta * target
evals = np.linalg.eigvalsh(S_shr)
L = np.linalg.cholesky(S_shr)
print(f"condition number {evals[-1] / evals[0]:.1f}, top eigen share {evals[-1] / evals.sum():.2%}")

# %% [markdown]
# Monte Carlo 10-day VaR and expected shortfall of an inverse-vol portfolio

# %%
port_w = 1.0 / np.sqrt(np.diag(S_shr))
port_w /= port_w.sum()
n_sims = 20_000
Zs = rng.standard_normal((n_sims, n_assets))
sim_1d = Zs @ L.T
pnl_10d = np.sqrt(10) * (sim_1d @ port_w)
var99, var95 = -np.quantile(pnl_10d, [0.01, 0.05])
es99 = -pnl_10d[pnl_10d <= -var99].mean()
hist_10d = np.convolve(x[-504:] @ port_w, np.ones(10), mode="valid")
hvar99 = -np.quantile(hist_10d, 0.01)
print(f"10-day VaR99 {var99:.3%} (historical {hvar99:.3%}), VaR95 {var95:.3%}, ES99 {es99:.3%}")

# %%
fig, ax = plt.subplots(1, 2, figsize=(12, 4))
ax[0].plot(equity)
ax[0].set_title("momentum L/S equity")
ax[1].hist(pnl_10d, bins=200)
ax[1].axvline(-var99, color="r")
fig.savefig("s15_finance.png")
plt.close(fig)

# %%
market = np.nanmean(logret, axis=1)
mkt_c = market - market.mean()
beta_hat = np.nansum((logret - np.nanmean(logret, axis=0)) * mkt_c[:, None], axis=0) / np.sum(mkt_c ** 2)
stats = pd.DataFrame({"ann_ret": np.nanmean(logret, axis=0) * 252,
                      "ann_vol": np.nanstd(logret, axis=0) * np.sqrt(252),
                      "beta": beta_hat, "true_beta": betas[:, 0],
                      "ewma_vol": ew_vol[-1], "days": valid.sum(axis=0)})
stats["sharpe"] = stats["ann_ret"] / stats["ann_vol"]
print(stats.describe().round(3))
stats.sort_values("sharpe", ascending=False).head(10)
