"""Recurrent layers and nn.utils.rnn against torch: torch's weights loaded into labkit, float64,
values, gradients (random upstream gradient) of inputs, initial states and every parameter."""
import numpy as np
import pytest

import labkit
from labkit import nn
from labkit.nn.utils import rnn as rnn_utils
from conftest import assert_close

torch = pytest.importorskip("torch")


def _pair(cls_name, *args, device="cpu", **kwargs):
    """The same layer in torch and labkit, labkit holding torch's (float64) weights."""
    torch.manual_seed(0)
    tm = getattr(torch.nn, cls_name)(*args, **kwargs).double()
    lm = getattr(nn, cls_name)(*args, **kwargs).double()
    assert list(lm.state_dict()) == list(tm.state_dict())
    lm.load_state_dict({k: labkit.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    return tm, lm.to(device)


def _twin(shape, seed, device="cpu"):
    arr = np.random.default_rng(seed).standard_normal(shape)
    return (labkit.tensor(arr, device=device, requires_grad=True),
            torch.tensor(arr, requires_grad=True))


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _compare(lout, tout, lleaves, tleaves, seed=7):
    lout, tout = _flat(lout), _flat(tout)
    assert len(lout) == len(tout)
    rng = np.random.default_rng(seed)
    lsum, tsum = 0, 0
    for a, b in zip(lout, tout):
        assert_close(a.detach(), b.detach())
        g = rng.standard_normal(tuple(b.shape))
        lsum = lsum + (a * labkit.tensor(g, device=a.device)).sum()
        tsum = tsum + (b * torch.tensor(g)).sum()
    lsum.backward()
    tsum.backward()
    for (name, a), b in zip(lleaves, tleaves):
        assert_close(a.grad, b.grad, what=f"gradient of {name}")


def _params(lm, tm):
    return list(lm.named_parameters()), [p for _, p in tm.named_parameters()]


CONFIGS = [dict(), dict(num_layers=2), dict(bidirectional=True), dict(batch_first=True),
           dict(num_layers=3, bidirectional=True, batch_first=True), dict(bias=False)]


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("kw", CONFIGS, ids=lambda kw: ",".join(kw) or "default")
def test_layer_matches_torch(cls, kw, device):
    tm, lm = _pair(cls, 3, 4, **kw, device=device)
    shape = (2, 5, 3) if kw.get("batch_first") else (5, 2, 3)
    lx, tx = _twin(shape, 1, device)
    pl, pt = _params(lm, tm)
    _compare(lm(lx), tm(tx), [("x", lx)] + pl, [tx] + pt)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_initial_state_and_its_gradient(cls):
    tm, lm = _pair(cls, 3, 4, num_layers=2, bidirectional=True)
    lx, tx = _twin((6, 3, 3), 1)
    lh, th = _twin((4, 3, 4), 2)
    if cls == "LSTM":
        lc, tc = _twin((4, 3, 4), 3)
        _compare(lm(lx, (lh, lc)), tm(tx, (th, tc)), [("x", lx), ("h0", lh), ("c0", lc)],
                 [tx, th, tc])
    else:
        _compare(lm(lx, lh), tm(tx, th), [("x", lx), ("h0", lh)], [tx, th])


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_unbatched_input(cls):
    tm, lm = _pair(cls, 3, 2, num_layers=2)
    lx, tx = _twin((4, 3), 1)
    _compare(lm(lx), tm(tx), [("x", lx)], [tx])


def test_relu_nonlinearity_and_repr():
    tm, lm = _pair("RNN", 3, 4, nonlinearity="relu", num_layers=2, dropout=0.5)
    assert repr(lm) == repr(tm)
    lm.eval(), tm.eval()
    lx, tx = _twin((5, 2, 3), 1)
    _compare(lm(lx), tm(tx), [("x", lx)], [tx])


def test_dropout_between_layers():
    """p=1 zeroes the second layer's input: deterministic, so it can be compared; p=0.5
    changes the output in training and not in eval."""
    tm, lm = _pair("GRU", 3, 4, num_layers=2, dropout=1.0)
    lx, tx = _twin((5, 2, 3), 1)
    _compare(lm(lx), tm(tx), [("x", lx)], [tx])
    lm.dropout = 0.5
    out_train = lm(lx)[0]
    lm.eval()
    out_eval = lm(lx)[0]
    assert not np.allclose(out_train.detach().numpy(), out_eval.detach().numpy())
    with pytest.warns(UserWarning, match="num_layers greater than 1"):
        nn.LSTM(3, 4, dropout=0.5)


def test_zero_length_sequence_is_an_error_as_in_torch():
    with pytest.raises(RuntimeError, match="larger than 0"):
        torch.nn.LSTM(3, 4)(torch.zeros(0, 2, 3))
    with pytest.raises(RuntimeError, match="larger than 0"):
        nn.LSTM(3, 4)(labkit.zeros(0, 2, 3))


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [True, False])
def test_cells(cls, batched, device):
    tm, lm = _pair(cls, 3, 4, device=device)
    shape = (2, 3) if batched else (3,)
    lx, tx = _twin(shape, 1, device)
    lh, th = _twin(shape[:-1] + (4,), 2, device)
    pl, pt = _params(lm, tm)
    if cls == "LSTMCell":
        lc, tc = _twin(shape[:-1] + (4,), 3, device)
        _compare(lm(lx, (lh, lc)), tm(tx, (th, tc)), [("x", lx), ("h", lh), ("c", lc)] + pl,
                 [tx, th, tc] + pt)
    else:
        _compare(lm(lx, lh), tm(tx, th), [("x", lx), ("h", lh)] + pl, [tx, th] + pt)
        assert_close(lm(lx).detach(), tm(tx).detach())
    assert list(lm.state_dict()) == ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]


def test_cell_errors_and_default_init():
    with pytest.raises(RuntimeError, match="input_size"):
        nn.GRUCell(3, 4)(labkit.randn(2, 5))
    with pytest.raises(RuntimeError, match="input_size"):
        nn.LSTM(3, 4)(labkit.randn(2, 2, 5))
    with pytest.raises(RuntimeError, match="hidden size"):
        nn.GRU(3, 4)(labkit.randn(2, 2, 3), labkit.randn(1, 3, 4))
    with pytest.raises(ValueError, match="nonlinearity"):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    w = nn.LSTM(3, 16).weight_hh_l0
    assert w.shape == (64, 16) and float(w.abs().max()) <= 0.25


# --- nn.utils.rnn ----------------------------------------------------------------------------
LENGTHS = [5, 3, 3, 1]


def test_pad_sequence():
    seqs = [np.random.default_rng(i).standard_normal((n, 2)) for i, n in enumerate([2, 4, 1])]
    for kw in [dict(), dict(batch_first=True), dict(padding_value=-1.0),
               dict(batch_first=True, padding_side="left")]:
        mine = rnn_utils.pad_sequence([labkit.tensor(s) for s in seqs], **kw)
        ref = torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], **kw)
        assert_close(mine, ref)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths", [LENGTHS, [1, 5, 3, 2]], ids=["sorted", "unsorted"])
def test_pack_and_pad_roundtrip(batch_first, lengths):
    enforce = lengths == sorted(lengths, reverse=True)
    shape = (4, 5, 2) if batch_first else (5, 4, 2)
    lx, tx = _twin(shape, 1)
    lp = rnn_utils.pack_padded_sequence(lx, lengths, batch_first, enforce_sorted=enforce)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, batch_first,
                                                 enforce_sorted=enforce)
    assert_close(lp.data.detach(), tp.data.detach())
    assert_close(lp.batch_sizes, tp.batch_sizes)
    assert (lp.sorted_indices is None) == (tp.sorted_indices is None)
    if tp.sorted_indices is not None:
        assert_close(lp.sorted_indices, tp.sorted_indices)
        assert_close(lp.unsorted_indices, tp.unsorted_indices)
    lo, llen = rnn_utils.pad_packed_sequence(lp, batch_first, padding_value=-2.0, total_length=6)
    to, tlen = torch.nn.utils.rnn.pad_packed_sequence(tp, batch_first, padding_value=-2.0,
                                                      total_length=6)
    assert_close(llen, tlen)
    _compare(lo, to, [("x", lx)], [tx])


def test_pack_errors():
    x = labkit.zeros(3, 2, 1)
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        rnn_utils.pack_padded_sequence(x, [1, 3])
    with pytest.raises(RuntimeError, match="greater than 0"):
        rnn_utils.pack_padded_sequence(x, [2, 0])
    p = rnn_utils.pack_padded_sequence(x, [3, 2])
    with pytest.raises(ValueError, match="total_length"):
        rnn_utils.pad_packed_sequence(p, total_length=2)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("lengths", [LENGTHS, [2, 5, 1, 3]], ids=["sorted", "unsorted"])
def test_layers_take_packed_sequences(cls, lengths, device):
    """Each sequence's h_n is the state after its own last step (forward) or first step
    (reverse direction), and the packed output matches torch's."""
    enforce = lengths == sorted(lengths, reverse=True)
    tm, lm = _pair(cls, 2, 3, num_layers=2, bidirectional=True, device=device)
    lx, tx = _twin((4, 5, 2), 1, device)
    lh, th = _twin((4, 4, 3), 2, device)
    state_l = (lh, lh * 0.5) if cls == "LSTM" else lh
    state_t = (th, th * 0.5) if cls == "LSTM" else th
    lp = rnn_utils.pack_padded_sequence(lx, lengths, batch_first=True, enforce_sorted=enforce)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, batch_first=True,
                                                 enforce_sorted=enforce)
    lout, lstate = lm(lp, state_l)
    tout, tstate = tm(tp, state_t)
    assert isinstance(lout, rnn_utils.PackedSequence)
    lpad, _ = rnn_utils.pad_packed_sequence(lout, batch_first=True)
    tpad, _ = torch.nn.utils.rnn.pad_packed_sequence(tout, batch_first=True)
    pl, pt = _params(lm, tm)
    _compare((lpad, lstate), (tpad, tstate), [("x", lx), ("h0", lh)] + pl, [tx, th] + pt)


def test_pack_sequence_and_padding_does_not_leak():
    """Packed: the padding never enters the computation (values there do not matter)."""
    seqs = [labkit.randn(n, 2, dtype=labkit.float64) for n in (4, 2)]
    gru = nn.GRU(2, 3).double()
    _, h = gru(rnn_utils.pack_sequence(seqs))
    _, h_short = gru(seqs[1].unsqueeze(1))
    assert_close(h[:, 1], h_short[:, 0])


def test_embedding_from_pretrained():
    w = np.random.default_rng(0).standard_normal((5, 3))
    idx = [[0, 2, 4], [4, 4, 1]]
    for kw in [dict(), dict(freeze=False), dict(padding_idx=4, freeze=False),
               dict(max_norm=1.0)]:
        lw, tw = labkit.tensor(w), torch.tensor(w)
        le = nn.Embedding.from_pretrained(lw, **kw)
        te = torch.nn.Embedding.from_pretrained(tw, **kw)
        assert le.weight.requires_grad == te.weight.requires_grad
        assert repr(le) == repr(te)
        lo, to = le(labkit.tensor(idx)), te(torch.tensor(idx))
        assert_close(lo.detach(), to.detach())
        assert_close(le.weight.detach(), te.weight.detach())   # max_norm renormalises in place
        if le.weight.requires_grad:
            g = np.random.default_rng(1).standard_normal(lo.shape)
            (lo * labkit.tensor(g)).sum().backward()
            (to * torch.tensor(g)).sum().backward()
            assert_close(le.weight.grad, te.weight.grad)
    with pytest.raises(ValueError, match="2-D"):
        nn.Embedding.from_pretrained(labkit.zeros(3))


def test_all_weights_and_flatten_parameters():
    tm, lm = _pair("LSTM", 3, 4, num_layers=2, bidirectional=True)
    lm.flatten_parameters()
    tm.flatten_parameters()
    assert [[tuple(w.shape) for w in ws] for ws in lm.all_weights] == \
        [[tuple(w.shape) for w in ws] for ws in tm.all_weights]
    assert lm.all_weights[1][0] is lm.weight_ih_l0_reverse


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_size_one_everything(cls):
    """One step, one sequence, one feature, one hidden unit."""
    tm, lm = _pair(cls, 1, 1, bidirectional=True)
    lx, tx = _twin((1, 1, 1), 3)
    pl, pt = _params(lm, tm)
    _compare(lm(lx), tm(tx), [("x", lx)] + pl, [tx] + pt)


BAD_CALLS = [
    ("LSTM", (3, 4), lambda lib: (lib.zeros(2, 2, 5, dtype=lib.float64),)),
    ("GRU", (3, 4), lambda lib: (lib.zeros(2, 2, 2, 3, dtype=lib.float64),)),
    ("RNN", (3, 4), lambda lib: (lib.zeros(2, 2, 3, dtype=lib.float64),
                                 lib.zeros(1, 3, 4, dtype=lib.float64))),
    ("GRUCell", (3, 4), lambda lib: (lib.zeros(2, 5, dtype=lib.float64),)),
    ("RNNCell", (3, 4), lambda lib: (lib.zeros(1, 2, 3, dtype=lib.float64),)),
]


@pytest.mark.parametrize("cls,args,inputs", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_inputs_raise_torchs_exception_type(cls, args, inputs):
    kinds = []
    for lib in (torch, labkit):
        layer = getattr(lib.nn, cls)(*args).double()
        with pytest.raises(Exception) as info:
            layer(*inputs(lib))
        kinds.append(type(info.value))
    assert kinds[1] is kinds[0]


@pytest.mark.parametrize("kw", [dict(proj_size=2), dict(proj_size=2, num_layers=2,
                                                          bidirectional=True, batch_first=True)])
def test_lstm_projection(kw, device):
    tm, lm = _pair("LSTM", 3, 4, **kw, device=device)
    assert repr(lm) == repr(tm)
    shape = (2, 5, 3) if kw.get("batch_first") else (5, 2, 3)
    lx, tx = _twin(shape, 1, device)
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    lh, th = _twin((layers, 2, 2), 2, device)
    lc, tc = _twin((layers, 2, 4), 3, device)
    pl, pt = _params(lm, tm)
    _compare(lm(lx, (lh, lc)), tm(tx, (th, tc)), [("x", lx), ("h0", lh), ("c0", lc)] + pl,
             [tx, th, tc] + pt)
    packed_l = rnn_utils.pack_padded_sequence(lx.detach(), [5, 3], kw.get("batch_first", False))
    packed_t = torch.nn.utils.rnn.pack_padded_sequence(tx.detach(), [5, 3],
                                                       kw.get("batch_first", False))
    _, (lh_n, _) = lm(packed_l)
    _, (th_n, _) = tm(packed_t)
    assert_close(lh_n.detach(), th_n.detach())
    with pytest.raises(ValueError, match="proj_size"):
        nn.LSTM(3, 4, proj_size=4)
