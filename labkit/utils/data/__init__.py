"""labkit.utils.data: datasets, samplers and the DataLoader, as in torch.utils.data."""
from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .distributed import DistributedSampler
from .dataset import ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .stack_dataset import StackDataset  # noqa: F401
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)
from .worker import WorkerInfo, get_worker_info

__all__ = ["BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "WorkerInfo", "default_collate",
           "default_convert", "get_worker_info", "random_split", "StackDataset", "ChainDataset"]

# a torch API that labkit lacks is named as such in the AttributeError
from ...engine.unsupported import module_getattr  # noqa: E402
__getattr__ = module_getattr(__name__, "torch.utils.data")
