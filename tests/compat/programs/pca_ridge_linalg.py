"""Closed-form linear algebra as ML notebooks use it (d2l's linear-regression chapter and
"PCA from scratch" tutorials): ridge regression by the normal equations with
torch.linalg.solve(X.T @ X + lam * I, X.T @ y) checked against torch.linalg.inv and against
gradient descent, torch.det / slogdet of the Gram matrix, PCA by torch.linalg.eigh of the
covariance (eigenvalues ascending, so .flip), explained variance ratios, projection and
reconstruction, a Cholesky factor of the covariance reproducing it, and a Mahalanobis distance
through torch.linalg.solve with a batch of right-hand sides."""
import torch

torch.manual_seed(0)
n, d = 200, 5
true_w = torch.tensor([2.0, -3.4, 0.0, 1.5, 0.7])
X = torch.randn(n, d, dtype=torch.float64)
y = X @ true_w.double() + 4.2 + 0.01 * torch.randn(n, dtype=torch.float64)

Xb = torch.cat([X, torch.ones(n, 1, dtype=torch.float64)], dim=1)
lam = 1e-3
I = torch.eye(d + 1, dtype=torch.float64)
w_solve = torch.linalg.solve(Xb.T @ Xb + lam * I, Xb.T @ y)
w_inv = torch.linalg.inv(Xb.T @ Xb + lam * I) @ Xb.T @ y
assert torch.allclose(w_solve, w_inv, atol=1e-8)
assert torch.allclose(w_solve[:d], true_w.double(), atol=1e-2) and abs(w_solve[-1] - 4.2) < 1e-2
sign, logabsdet = torch.linalg.slogdet(Xb.T @ Xb)
assert sign == 1 and torch.isclose(logabsdet, torch.log(torch.det(Xb.T @ Xb)))

w = torch.zeros(d + 1, dtype=torch.float64, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
for _ in range(300):
    loss = ((Xb @ w - y) ** 2).mean() + lam / n * (w ** 2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
assert torch.allclose(w.detach(), w_solve, atol=1e-3)

# PCA of correlated 3-D data
mix = torch.tensor([[3.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.5, 0.2, 0.1]])
Z = torch.randn(500, 3) @ mix
Zc = Z - Z.mean(dim=0, keepdim=True)
cov = Zc.T @ Zc / (Zc.shape[0] - 1)
assert torch.allclose(cov, torch.cov(Zc.T), atol=1e-5) if hasattr(torch, "cov") else True
eigenvalues, eigenvectors = torch.linalg.eigh(cov)
assert (eigenvalues[1:] >= eigenvalues[:-1]).all()
order = torch.argsort(eigenvalues, descending=True)
eigenvalues, eigenvectors = eigenvalues[order], eigenvectors[:, order]
explained = eigenvalues / eigenvalues.sum()
print("explained variance ratio:", [round(v, 3) for v in explained.tolist()])
assert explained[0] > 0.8 and torch.isclose(explained.sum(), torch.tensor(1.0))
assert torch.allclose(cov @ eigenvectors, eigenvectors * eigenvalues, atol=1e-4)
assert torch.allclose(eigenvectors.T @ eigenvectors, torch.eye(3), atol=1e-5)
projected = Zc @ eigenvectors[:, :2]
reconstructed = projected @ eigenvectors[:, :2].T
err = ((Zc - reconstructed) ** 2).sum(1).mean()
assert torch.isclose(err, eigenvalues[2] * (Zc.shape[0] - 1) / Zc.shape[0], rtol=1e-2)
assert torch.allclose(torch.linalg.eigvalsh(cov), eigenvalues.flip(0), atol=1e-5)

L = torch.linalg.cholesky(cov)
assert torch.allclose(L @ L.T, cov, atol=1e-5) and torch.equal(L, L.tril())
diffs = (Z[:4] - Z.mean(0)).T
m = (diffs * torch.linalg.solve(cov, diffs)).sum(0).sqrt()
assert m.shape == (4,) and (m > 0).all()
