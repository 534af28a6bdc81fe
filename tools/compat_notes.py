"""Hand-kept notes for docs/compat.md (tools/compat_table.py reads them).

DIFFERENCES: an API labkit has but that behaves differently from torch's; its row says
"differs" with the note. Keep each note to what a student would trip over, and delete it when
the difference goes.

REASONS: why labkit lacks an API, as (regular expression on the qualified name, reason); the
first match wins. An unsupported name with no match is listed without a reason.
"""

# labkit's CPU generator is torch's (mt19937, torch's per-distribution transforms): after the
# same seed the numbers are equal bit for bit (tests/test_rng_torch.py). The notes below are
# the known exceptions.
_X86 = ("float32 draws of 16 or more normals equal torch's where torch runs its AVX2 kernel "
        "(x86-64 CPUs with AVX2); on other CPUs (ARM Macs) torch uses the C library's float "
        "functions and the last bit can differ; float16 normals are not torch's")
_CUDA = ("a cuda generator draws on the host (the CPU stream's numbers, then moved), not "
         "torch's cuda (Philox) stream")

_OWN_DRAWS = ("samples come from labkit's generator (reproducible with labkit.manual_seed) but are "
              "not torch's numbers; log_prob, moments and kl equal torch's, and the implicit "
              "rsample gradients of the gamma family are summed exactly where torch fits an "
              "approximation (they agree to about 1e-3)")
_DET = ("the gradient at a singular matrix is adj(A)^T, as torch gives with create_graph=True "
        "(torch 2.13's first-order path gives zeros there)")
DIFFERENCES = {
    **{f"torch.distributions.{n}": _OWN_DRAWS for n in (
        "Gamma", "Chi2", "Beta", "Dirichlet", "StudentT", "Poisson", "Binomial", "NegativeBinomial",
        "InverseGamma", "FisherSnedecor", "Wishart", "LKJCholesky", "VonMises")},
    "torch.linalg.det": _DET,
    "torch.det": _DET,
    "torch.Tensor.det": _DET,
    "torch.save": "writes labkit's zip of .npy files + JSON (never pickle); torch cannot read "
                  "it and labkit cannot read torch's files",
    "torch.load": "reads only labkit's format and never unpickles, so loading cannot run code",
    "torch.Generator": _CUDA,
    "torch.randn": _X86,
    "torch.randn_like": _X86,
    "torch.normal": _X86,
    "torch.nn.init.normal_": _X86,
    "torch.nn.init.trunc_normal_": _X86,
    "torch.nn.init.xavier_normal_": _X86,
    "torch.nn.init.kaiming_normal_": _X86,
    "torch.randperm": "torch's numbers up to n = 214748363; above, torch switches to a 64-bit "
                      "draw labkit refuses (NotImplementedError)",
    "torch.multinomial": "torch's numbers, except the order of ties without replacement (zero "
                         "weights drawn after the positive ones run out: torch's topk order)",
    "torch.nn.LeakyReLU": "inplace=True raises NotImplementedError",
    "torch.cuda": "CUDA through CuPy (pip install labkit[gpu]); no streams, graphs or "
                  "memory-pool tuning",
    "torch.jit": "labkit.jit is labkit's own trace/script/compile (the course's JIT), not "
                 "TorchScript: same names, its own graph IR and file format",
    "torch.float16": "numpy's float16; there is no bfloat16",
    "torch.detach_copy": "the result is detached (requires_grad False); torch 2.13 marks its "
                         "result as requiring grad, with a grad_fn whose backward cannot run",
    "torch.Tensor.output_nr": "reads labkit's graph: unbind's outputs are SelectBackward0 "
                              "nodes each (output_nr 0), where torch's one UnbindBackward0 "
                              "numbers them 0, 1, ...",
    "torch.rrelu": "training=True draws the slopes from labkit's generator, not torch's numbers",
    "torch.rrelu_": "training=True draws the slopes from labkit's generator, not torch's numbers",
    "torch.Tensor.dim_order": "ambiguity_check=True raises NotImplementedError",
}

REASONS = [
    (r"(^|\.)(bfloat16|BFloat16)", "bfloat16 is not a numpy dtype"),
    (r"^torch\.(Tensor\.)?native_norm$", "torch registers native_norm for sparse tensors only "
     "(a dense tensor raises NotImplementedError): use linalg.vector_norm"),
    (r"^torch\.(Tensor\.)?values(_copy)?$", "the values of a sparse tensor: sparse tensors are "
     "out of scope"),
    (r"sparse|_coo|_csr|_csc|_bsr|_bsc|to_dense|coalesce|(^|\.)indices(_copy)?$|crow_|ccol_|"
     r"(^|\.)row_indices|(^|\.)col_indices|SparseAdam", "sparse tensors are out of scope"),
    (r"quantiz|(^|\.)q_|int_repr|dequantize|(^|\.)Q(U)?Int|(^|\.)qint|(^|\.)quint|qscheme|"
     r"per_channel|per_tensor", "quantized tensors are out of scope"),
    (r"(^|\.)(chalf|complex32)$", "complex32 (chalf) has no numpy dtype: labkit's complex "
     "tensors are complex64 and complex128"),
    (r"^torch\.linalg\.ldl_", "LDL^T with Bunch-Kaufman pivoting has no numpy LAPACK binding; "
     "use cholesky or lu"),
    (r"Storage|storage|(^|\.)[A-Z][a-z]*Tensor$|data_ptr|untyped",
     "storages and legacy typed-tensor classes: labkit tensors wrap numpy/cupy arrays"),
    (r"(^|\.)sym_|Sym[A-Z]|compile|_dynamo|(^|\.)export|(^|\.)cond$|vmap|(^|\.)fx",
     "torch.compile/export/symbolic shapes: labkit's graph capture is labkit.jit"),
    (r"names$|rename|align_to|align_as|refine_names|unflatten_names",
     "named tensors (a prototype in torch) are out of scope"),
    (r"mkldnn|miopen|cudnn|fbgemm|vulkan|mps|xpu|mtia|hpu|ipu|xla|nnpack|(^|\.)is_ve$",
     "backend-specific kernels: labkit runs on numpy (cpu) and cupy (cuda)"),
    (r"fft|stft|istft|_window$", "signal processing (fft) is out of scope"),
    (r"nested|jagged", "nested tensors are out of scope"),
    (r"distributed|DistributedDataParallel|DataParallel|DistributedSampler|share_memory|"
     r"is_shared", "distributed and shared-memory training: a later lecture (labkit.distributed)"),
    (r"DataPipe|datapipe|DataChunk|runtime_validation|argument_validation|non_deterministic",
     "DataPipes are deprecated in torch"),
    (r"autocast|GradScaler|(^|\.)amp$", "mixed precision is a later lecture (labkit.amp)"),
    # issue #14 leaves these to other issues
    (r"(^|\.)(RNN|LSTM|GRU)|rnn|lstm|gru", "recurrent nets: an issue of their own (not #14)"),
    (r"^torch\.nn\.Module\.register_.*hook", "module hooks: an issue of their own (not #14)"),
    (r"^torch\.optim\.", "the rest of torch.optim: an issue of its own (not #14)"),
    (r"^torch\.autograd\.", "the rest of torch.autograd: an issue of its own (not #14)"),
]

# What issue #14 asks for (tensor, nn-layer, loss, data and save/load surface); its rows say so
# until the API lands (then the row says "yes" and this entry is unused).
ISSUE_14 = set("""
torch.normal torch.Tensor.normal_ torch.Tensor.uniform_ torch.Tensor.bernoulli_
torch.Tensor.exponential_ torch.meshgrid torch.sinh torch.cosh torch.dot torch.Tensor.view_as
torch.norm torch.Tensor.norm torch.linalg torch.logsumexp torch.bmm torch.einsum torch.narrow
torch.cumsum torch.prod torch.gather torch.scatter torch.scatter_add torch.index_select
torch.unbind torch.flip torch.sort torch.topk torch.Tensor.repeat torch.roll torch.tril
torch.triu torch.movedim torch.Tensor.unflatten torch.log1p torch.expm1 torch.square
torch.rsqrt torch.reciprocal torch.floor torch.ceil torch.round torch.log2 torch.lerp
torch.atan2 torch.addmm torch.Tensor.new_zeros torch.Tensor.new_ones torch.Tensor.new_full
torch.Tensor.new_tensor torch.multinomial torch.bincount torch.nn.functional.one_hot
torch.Tensor.__floordiv__ torch.Tensor.__mod__ torch.Tensor.exp_ torch.Tensor.sigmoid_
torch.Tensor.abs_ torch.Tensor.sqrt_ torch.Tensor.tanh_ torch.masked_fill torch.clamp_
torch.relu_ torch.set_default_device torch.set_default_dtype torch.accelerator
torch.Tensor.type torch.nn.AvgPool2d torch.nn.AdaptiveAvgPool2d torch.nn.functional.avg_pool2d
torch.nn.functional.adaptive_avg_pool2d torch.nn.Dropout2d torch.nn.LayerNorm
torch.nn.functional.layer_norm torch.nn.GroupNorm torch.nn.BatchNorm2d torch.nn.ConvTranspose2d
torch.nn.Upsample torch.nn.Identity torch.nn.ModuleDict torch.nn.ParameterList
torch.nn.ParameterDict torch.nn.functional.pad torch.nn.functional.normalize
torch.nn.functional.softplus torch.nn.functional.elu torch.nn.functional.silu
torch.nn.functional.hardtanh torch.nn.functional.relu6 torch.nn.functional.softmin
torch.nn.functional.logsigmoid torch.nn.functional.mish torch.nn.Softmax torch.nn.LogSoftmax
torch.nn.functional.smooth_l1_loss torch.nn.SmoothL1Loss torch.nn.functional.huber_loss
torch.nn.functional.binary_cross_entropy torch.nn.BCELoss torch.nn.functional.kl_div
torch.utils.data.Subset torch.utils.data.TensorDataset torch.utils.data.default_collate
""".split())

# Call forms: how a program calls an API, not just its name (issue #14's keyword forms and
# options). Each snippet runs with `torch` bound to torch and to labkit (and nn, F, data, io
# bound to torch.nn, torch.nn.functional, torch.utils.data and io); the table says whether it
# runs on labkit (it must run on torch, or the generator stops).
CALL_FORMS = {
    "torch.matmul(input=, other=)": "torch.matmul(input=torch.ones(2, 2), other=torch.ones(2))",
    "torch.add(a, b, out=)": "o = torch.empty(2); torch.add(torch.ones(2), torch.ones(2), out=o)",
    "torch.mul(a, b, out=)": "o = torch.empty(2); torch.mul(torch.ones(2), torch.ones(2), out=o)",
    "torch.matmul(a, b, out=)": "o = torch.empty(2, 2); torch.matmul(torch.ones(2, 2), "
                                "torch.ones(2, 2), out=o)",
    "x.sum(axis=)": "torch.ones(2, 3).sum(axis=1)",
    "x.sum(1, keepdims=True)": "torch.ones(2, 3).sum(1, keepdims=True)",
    "x.mean(dim=(0, 1))": "torch.ones(2, 3).mean(dim=(0, 1))",
    "x.max(dim=1) -> (values, indices)": "v, i = torch.ones(2, 3).max(dim=1); v.shape, i.shape",
    "torch.max(x, 1) on x.data": "torch.max(torch.ones(2, 3).data, 1)",
    "torch.randn(size=(2, 3))": "torch.randn(size=(2, 3))",
    "torch.randint(high, size)": "torch.randint(10, (3,))",
    "torch.randn(..., generator=g)": "torch.randn(3, generator=torch.Generator().manual_seed(0))",
    "torch.randperm(n, generator=g)": "torch.randperm(5, generator=torch.Generator()"
                                      ".manual_seed(0))",
    "torch.multinomial(p, n, generator=g)": "torch.multinomial(torch.ones(4), 2, "
                                            "generator=torch.Generator().manual_seed(0))",
    "x.type(torch.float64)": "assert torch.ones(2).type(torch.float64).dtype == torch.float64",
    "x.type() -> 'torch.FloatTensor'": "assert torch.ones(2).type() == 'torch.FloatTensor'",
    "x // 2 and x % 2": "torch.arange(5) // 2, torch.arange(5) % 2",
    "param.data.add_(g, alpha=)": "p = torch.ones(2, requires_grad=True); "
                                  "p.data.add_(torch.ones(2), alpha=-0.1)",
    "w.data.normal_(0, 0.01)": "torch.empty(3).data.normal_(0, 0.01)",
    "torch.load(f, weights_only=True)": "b = io.BytesIO(); torch.save({'w': torch.ones(2)}, b); "
                                        "b.seek(0); torch.load(b, weights_only=True)",
    "torch.load(f, map_location='cpu')": "b = io.BytesIO(); torch.save(torch.ones(2), b); "
                                         "b.seek(0); torch.load(b, map_location='cpu')",
    "torch.save of nested dicts, lists, numbers": "b = io.BytesIO(); torch.save({'a': [1, 2.5, "
                                                  "(torch.ones(1), None)], 'b': 'x'}, b)",
    "optimizer.zero_grad(set_to_none=True)": "torch.optim.SGD([torch.ones(1, requires_grad=True)"
                                             "], lr=0.1).zero_grad(set_to_none=True)",
    "torch.autograd.grad(..., only_inputs=True)": "x = torch.ones(2, requires_grad=True); "
                                                  "torch.autograd.grad((x * x).sum(), x, "
                                                  "only_inputs=True)",
    "nn.CrossEntropyLoss(weight=, ignore_index=, label_smoothing=, reduction=)":
        "nn.CrossEntropyLoss(weight=torch.ones(3), ignore_index=-100, label_smoothing=0.1, "
        "reduction='sum')(torch.zeros(2, 3), torch.tensor([0, -100]))",
    "nn.NLLLoss(weight=, ignore_index=)": "nn.NLLLoss(weight=torch.ones(3), ignore_index=1)"
                                          "(torch.zeros(2, 3), torch.tensor([0, 1]))",
    "nn.BCEWithLogitsLoss(pos_weight=)": "nn.BCEWithLogitsLoss(pos_weight=torch.ones(2))"
                                         "(torch.zeros(3, 2), torch.ones(3, 2))",
    "nn.ReLU(inplace=True)": "nn.ReLU(inplace=True)(torch.ones(2))",
    "nn.LeakyReLU(0.2, inplace=True)": "nn.LeakyReLU(0.2, inplace=True)(torch.ones(2))",
    "nn.Conv2d(groups=)": "nn.Conv2d(4, 4, 3, groups=2)(torch.ones(1, 4, 5, 5))",
    "nn.Conv2d(padding='same')": "nn.Conv2d(1, 2, 3, padding='same')(torch.ones(1, 1, 5, 5))",
    "nn.MaxPool2d(ceil_mode=True)": "nn.MaxPool2d(2, ceil_mode=True)(torch.ones(1, 1, 5, 5))",
    "nn.MaxPool2d(return_indices=True)": "nn.MaxPool2d(2, return_indices=True)"
                                         "(torch.ones(1, 1, 4, 4))",
    "nn.Sequential item assignment": "m = nn.Sequential(nn.Linear(2, 2)); m[0] = nn.Linear(2, 3)",
    "data.TensorDataset of 3 tensors": "data.TensorDataset(torch.ones(4, 2), torch.ones(4), "
                                       "torch.zeros(4))[1]",
    "data.default_collate on dicts, namedtuples, strings":
        "import collections; P = collections.namedtuple('P', 'x y'); "
        "data.default_collate([{'a': P(torch.ones(1), 'u')}, {'a': P(torch.ones(1), 'v')}])",
    "data.DataLoader(generator=, worker_init_fn=, collate_fn=)":
        "list(data.DataLoader(list(range(6)), batch_size=2, shuffle=True, "
        "generator=torch.Generator().manual_seed(0), worker_init_fn=lambda i: None, "
        "collate_fn=lambda b: b))",
    "data.DataLoader(prefetch_factor=, persistent_workers=)":
        "data.DataLoader(list(range(6)), batch_size=2, num_workers=0, prefetch_factor=None, "
        "persistent_workers=False)",
}
