"""labkit.utils.tensorboard: SummaryWriter (torch.utils.tensorboard's), on `tensorboard`'s own
event-file writer: the files it writes are the ones TensorBoard reads.

Why the `tensorboard` package rather than tensorboardX: it is TensorBoard itself (maintained
with it, the format cannot drift), it is what torch.utils.tensorboard is built on, and the
same install gives the reader (EventAccumulator) the tests use and the `tensorboard` command /
`%load_ext tensorboard` that shows the logs in JupyterLab. It loads only when this module
is imported (import labkit stays light).
"""
from .writer import SummaryWriter  # noqa: F401
