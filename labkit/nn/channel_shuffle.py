"""nn.ChannelShuffle(groups): F.channel_shuffle as a layer (ShuffleNet)."""
from .module import Module


class ChannelShuffle(Module):
    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        from .functional_inplace import channel_shuffle
        return channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
