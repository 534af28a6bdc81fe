"""kl_divergence between LowRankMultivariateNormal and (LowRank)MultivariateNormal, through the
capacitance matrix as torch computes it (never forming an n x n inverse)."""
from ..engine.ops.linalg_triangular import solve_triangular
from .kl import register_kl
from .lowrank_multivariate_normal import (LowRankMultivariateNormal, _batch_lowrank_logdet,
                                          _batch_lowrank_mahalanobis)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .utils import _broadcast_shape


def _trace_XXT(m):
    return m.pow(2).sum((-2, -1))


def _check(p, q):
    if tuple(p.event_shape) != tuple(q.event_shape):
        raise ValueError("KL-divergence between two (Low Rank) Multivariate Normals with "
                         "different event shapes cannot be computed")


def _qinv_factor(q):
    """A with inv(q.cov) = inv(qD) - A^T A."""
    qWt_qDinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return solve_triangular(q._capacitance_tril, qWt_qDinv, upper=False)


def _lowrank_terms(q, diff):
    return (_batch_lowrank_logdet(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                  q._capacitance_tril),
            _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                       diff, q._capacitance_tril))


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p, q):
    _check(p, q)
    q_logdet, term3 = _lowrank_terms(q, q.loc - p.loc)
    term1 = q_logdet - _batch_lowrank_logdet(p._unbroadcasted_cov_factor,
                                             p._unbroadcasted_cov_diag, p._capacitance_tril)
    A = _qinv_factor(q)
    pW, pD, qD = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, q._unbroadcasted_cov_diag
    term2 = ((pD / qD).sum(-1) + _trace_XXT(pW * qD.rsqrt().unsqueeze(-1))
             - _trace_XXT(A * pD.sqrt().unsqueeze(-2)) - _trace_XXT(A @ pW))
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p, q):
    _check(p, q)
    q_logdet, term3 = _lowrank_terms(q, q.loc - p.loc)
    pL = p._unbroadcasted_scale_tril
    term1 = q_logdet - 2 * pL.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    A = _qinv_factor(q)
    term2 = (_trace_XXT(pL * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
             - _trace_XXT(A @ pL))
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p, q):
    _check(p, q)
    qL = q._unbroadcasted_scale_tril
    term1 = 2 * qL.diagonal(dim1=-2, dim2=-1).log().sum(-1) - _batch_lowrank_logdet(
        p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, p._capacitance_tril)
    term3 = _batch_mahalanobis(qL, q.loc - p.loc)
    batch = _broadcast_shape(tuple(qL.shape[:-2]), tuple(p._unbroadcasted_cov_factor.shape[:-2]))
    n = p.event_shape[0]
    qL = qL.expand(batch + (n, n))
    pW = p._unbroadcasted_cov_factor.expand(batch + (n, p.cov_factor.size(-1)))
    pD = p._unbroadcasted_cov_diag.sqrt().diag_embed().expand(batch + (n, n))
    term2 = (_trace_XXT(solve_triangular(qL, pW, upper=False))
             + _trace_XXT(solve_triangular(qL, pD, upper=False)))
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])
