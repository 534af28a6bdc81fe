"""labkit.nn: modules, parameters, layers, containers and losses (torch.nn).

    model = nn.Sequential(nn.Linear(2, 100), nn.ReLU(), nn.Linear(100, 3))
    loss = nn.CrossEntropyLoss()(model(x), y)
"""
from . import functional, init, modules, parallel, utils  # noqa: F401
from .activation import (CELU, ELU, GELU, GLU, SELU, Hardsigmoid, Hardswish, Hardtanh,
                         LeakyReLU, LogSigmoid, LogSoftmax, Mish, PReLU, ReLU, ReLU6, Sigmoid, SiLU,
                         Softmax, Softmin, Softplus, Softsign, Tanh, Tanhshrink)
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .sync_batchnorm import SyncBatchNorm  # noqa: F401,E402
from .unpool import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d  # noqa: F401,E402
from .channel_shuffle import ChannelShuffle  # noqa: F401,E402
from .alpha_dropout import AlphaDropout, FeatureAlphaDropout  # noqa: F401,E402
from .conv_transpose1d import ConvTranspose1d  # noqa: F401,E402
from .lp_pool import LPPool1d, LPPool2d, LPPool3d  # noqa: F401,E402
from .normalization import InstanceNorm3d  # noqa: F401,E402
from .padding import (CircularPad1d, CircularPad3d, ConstantPad3d,  # noqa: F401,E402
                      ReflectionPad3d, ReplicationPad3d, ZeroPad3d)
from .rrelu import RReLU  # noqa: F401,E402
from .multilabel_margin import MultiLabelMarginLoss  # noqa: F401,E402
from .loss import NLLLoss2d  # noqa: F401,E402
from .ctc_loss import CTCLoss  # noqa: F401,E402
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, ConvTranspose2d
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d
from .embedding import Embedding
from .flatten import Flatten, Unflatten
from .linear import Identity, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss,
                   MSELoss, NLLLoss, SmoothL1Loss)
from .module import Module
from .normalization import GroupNorm, InstanceNorm1d, InstanceNorm2d, LayerNorm
from .padding import (CircularPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d,
                      ReflectionPad2d, ReplicationPad1d, ReplicationPad2d, ZeroPad1d, ZeroPad2d)
from .parameter import Buffer, Parameter
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d,
                      MaxPool2d)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .lazy import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d,
                   LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyLinear,
                   LazyModuleMixin)
from .uninitialized import UninitializedBuffer, UninitializedParameter

__all__ = ["Module", "Parameter", "Buffer", "Linear", "Identity", "Conv2d", "MaxPool2d", "Flatten",
           "Dropout", "BatchNorm1d", "Embedding", "ReLU", "LeakyReLU", "Sigmoid", "Tanh", "GELU",
           "Softmax", "Sequential", "ModuleList", "ModuleDict", "MSELoss", "L1Loss",
           "CrossEntropyLoss", "NLLLoss", "BCEWithLogitsLoss", "functional", "init", "utils",
           "CELU", "ELU", "GLU", "SELU", "Hardsigmoid", "Hardswish", "Hardtanh", "LogSigmoid",
           "LogSoftmax", "Mish", "ReLU6", "SiLU", "Softmin", "Softplus", "Softsign",
           "Tanhshrink", "BatchNorm2d", "BatchNorm3d", "ParameterDict", "ParameterList",
           "Conv1d", "ConvTranspose2d", "Dropout1d", "Dropout2d", "Dropout3d", "BCELoss",
           "HuberLoss", "KLDivLoss", "SmoothL1Loss", "GroupNorm", "LayerNorm", "CircularPad2d",
           "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d",
           "ReplicationPad1d", "ReplicationPad2d", "ZeroPad1d", "ZeroPad2d",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d", "Upsample",
           "UpsamplingBilinear2d", "UpsamplingNearest2d", "PReLU", "Unflatten",
           "InstanceNorm1d", "InstanceNorm2d", "MaxPool1d",
           "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d",
           "LazyConvTranspose2d", "LazyLinear", "LazyModuleMixin", "UninitializedBuffer",
           "UninitializedParameter"]
from .attention import MultiheadAttention  # noqa: E402
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,  # noqa: E402
                          TransformerEncoder, TransformerEncoderLayer)
__all__ += ["AdaptiveLogSoftmaxWithLoss", "MultiheadAttention", "Transformer", "TransformerEncoder",
            "TransformerEncoderLayer", "TransformerDecoder", "TransformerDecoderLayer"]
from .distance import CosineSimilarity, PairwiseDistance  # noqa: E402
__all__ += ["CosineSimilarity", "PairwiseDistance"]
from .conv3d import Conv3d  # noqa: E402
__all__ += ["Conv3d"]
from .conv_transpose3d import ConvTranspose3d  # noqa: E402
__all__ += ["ConvTranspose3d"]
from .loss_margin import (CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss,  # noqa
                          MarginRankingLoss, MultiLabelSoftMarginLoss, MultiMarginLoss,
                          PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss,
                          TripletMarginWithDistanceLoss)
__all__ += ["CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
            "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "SoftMarginLoss",
            "TripletMarginLoss", "TripletMarginWithDistanceLoss"]
from .modules_extra import (AdaptiveMaxPool1d, AdaptiveMaxPool2d, Bilinear, Fold,  # noqa: E402
                            Hardshrink, LocalResponseNorm, Softmax2d, Softshrink, Threshold,
                            Unfold)
__all__ += ["AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "Bilinear", "Fold", "Hardshrink",
            "LocalResponseNorm", "Softmax2d", "Softshrink", "Threshold", "Unfold"]
from .data_parallel import DataParallel  # noqa: E402
__all__ += ["DataParallel"]
from .modules_extra import AdaptiveAvgPool3d, AvgPool3d, MaxPool3d  # noqa: E402
__all__ += ["AdaptiveAvgPool3d", "AvgPool3d", "MaxPool3d"]
from .embedding_bag import EmbeddingBag  # noqa: E402
from .pools_more import AdaptiveMaxPool3d, FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402
__all__ += ["AdaptiveMaxPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d"]
from .rms_norm import RMSNorm  # noqa: E402
from .pixel_shuffle import PixelShuffle, PixelUnshuffle  # noqa: E402
__all__ += ["EmbeddingBag", "RMSNorm", "PixelShuffle", "PixelUnshuffle"]

# a torch API that labkit lacks is named as such in the AttributeError
from ..engine.unsupported import module_getattr  # noqa: E402
__getattr__ = module_getattr(__name__, "torch.nn")
