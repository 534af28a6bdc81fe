"""A custom Dataset (__len__/__getitem__) returning a dict of tensors and an int label; the
DataLoader collates dicts and ints into batched tensors; len(dataloader) counts batches."""
import torch
from torch.utils.data import DataLoader, Dataset


class FaceLandmarksDataset(Dataset):
    def __init__(self, n, transform=None):
        g = torch.Generator().manual_seed(0)
        self.images = torch.rand(n, 3, 16, 16, generator=g)
        self.landmarks = torch.rand(n, 4, 2, generator=g) * 16
        self.transform = transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        if torch.is_tensor(idx):
            idx = idx.tolist()
        sample = {'image': self.images[idx], 'landmarks': self.landmarks[idx], 'label': idx % 3}
        if self.transform:
            sample = self.transform(sample)
        return sample


class Normalize:
    def __call__(self, sample):
        image = sample['image']
        return dict(sample, image=(image - 0.5) / 0.5)


dataset = FaceLandmarksDataset(10, transform=Normalize())
assert len(dataset) == 10 and dataset[3]['image'].min() >= -1
dataloader = DataLoader(dataset, batch_size=4, shuffle=True, num_workers=0)
assert len(dataloader) == 3
seen = 0
for i_batch, sample_batched in enumerate(dataloader):
    assert set(sample_batched) == {'image', 'landmarks', 'label'}
    assert sample_batched['image'].shape[1:] == (3, 16, 16)
    assert sample_batched['label'].dtype == torch.int64
    seen += sample_batched['landmarks'].size(0)
assert seen == 10 and sample_batched['image'].size(0) == 2

loader = DataLoader(dataset, batch_size=4, drop_last=True)
assert [b['label'].tolist() for b in loader] == [[0, 1, 2, 0], [1, 2, 0, 1]]
