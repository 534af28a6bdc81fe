"""Linear algebra the way data-science notebooks use torch.linalg: PCA by SVD (explained
variance, reconstruction from the top-k components, torch.pca-style low-rank approximation),
least squares three ways (lstsq, pinv, QR + solve_triangular) that must agree, matrix_rank of a
rank-deficient matrix, a Cholesky-based solve, matrix_exp of a rotation generator, and a
nuclear-norm-regularised matrix completion step that differentiates through svdvals."""
import math

import torch

torch.manual_seed(0)
X = torch.randn(200, 5) @ torch.tensor([[3.0, 0, 0, 0, 0], [1, 1, 0, 0, 0], [0, 0, 0.5, 0, 0],
                                        [0, 0, 0, 0.1, 0], [0, 0, 0, 0, 0.05]])
Xc = X - X.mean(0)
U, S, Vh = torch.linalg.svd(Xc, full_matrices=False)
ratio = S ** 2 / (S ** 2).sum()
print("explained variance", [round(r, 3) for r in ratio.tolist()])
assert ratio[:2].sum() > 0.95
X2 = U[:, :2] @ torch.diag(S[:2]) @ Vh[:2]
assert torch.linalg.matrix_norm(Xc - X2) < 0.2 * torch.linalg.matrix_norm(Xc)
assert torch.allclose(torch.linalg.svdvals(Xc), S)
assert torch.linalg.matrix_norm(Xc, ord=2).item() == S[0].item() or \
    abs(torch.linalg.matrix_norm(Xc, ord=2).item() - S[0].item()) < 1e-4

A = torch.randn(50, 4, dtype=torch.float64)
b = A @ torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=torch.float64) + 0.01 * torch.randn(50, dtype=torch.float64)
x1 = torch.linalg.lstsq(A, b.unsqueeze(-1)).solution.squeeze(-1)
x2 = torch.linalg.pinv(A) @ b
Q, R = torch.linalg.qr(A)
x3 = torch.linalg.solve_triangular(R, (Q.T @ b).unsqueeze(-1), upper=True).squeeze(-1)
L = torch.linalg.cholesky(A.T @ A)
x4 = torch.cholesky_solve((A.T @ b).unsqueeze(-1), L).squeeze(-1)
for x in (x2, x3, x4):
    assert torch.allclose(x1, x, atol=1e-8)
print("least squares", [round(v, 3) for v in x1.tolist()])

low_rank = torch.randn(6, 2) @ torch.randn(2, 6)
assert torch.linalg.matrix_rank(low_rank).item() == 2

theta = 0.3
G = torch.tensor([[0.0, -theta], [theta, 0.0]])
Rot = torch.linalg.matrix_exp(G)
assert torch.allclose(Rot, torch.tensor([[math.cos(theta), -math.sin(theta)],
                                         [math.sin(theta), math.cos(theta)]]), atol=1e-6)
assert torch.allclose(torch.linalg.matrix_power(Rot, 3), torch.linalg.matrix_exp(3 * G), atol=1e-5)

M_true = torch.randn(8, 2) @ torch.randn(2, 8)
mask = torch.rand(8, 8) < 0.6
M = torch.zeros(8, 8, requires_grad=True)
opt = torch.optim.Adam([M], lr=0.05)
for step in range(300):
    loss = ((M - M_true)[mask] ** 2).mean() + 0.01 * torch.linalg.svdvals(M).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
err = ((M - M_true)[~mask] ** 2).mean().item()
print(f"completion loss {loss.item():.4f}, held-out error {err:.3f}")
assert loss.item() < 1.0
