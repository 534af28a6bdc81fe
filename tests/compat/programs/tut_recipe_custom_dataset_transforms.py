"""PyTorch tutorial "Writing Custom Datasets, DataLoaders and Transforms" (beginner_source/
data_loading_tutorial.py) on generated 'face' images and landmarks instead of the downloaded
faces: FaceLandmarksDataset(Dataset) returning {'image', 'landmarks'} dicts, callable transform
classes Rescale / RandomCrop / ToTensor (numpy HWC -> CHW with transpose((2, 0, 1)) and
torch.from_numpy), composed by a small Compose, DataLoader(batch_size=4, shuffle=True,
num_workers=0) collating the dicts, and sample['landmarks'] kept consistent with the crops."""
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


class FaceLandmarksDataset(Dataset):
    """Face Landmarks dataset."""

    def __init__(self, n, transform=None):
        rng = np.random.RandomState(0)
        self.images = [rng.randint(0, 255, size=(rng.randint(40, 60), rng.randint(40, 60), 3))
                       .astype(np.uint8) for _ in range(n)]
        self.landmarks = [np.stack([rng.uniform(0, im.shape[1], 68),
                                    rng.uniform(0, im.shape[0], 68)], axis=1)
                          for im in self.images]
        self.transform = transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        if torch.is_tensor(idx):
            idx = idx.tolist()
        image = self.images[idx]
        landmarks = np.array([self.landmarks[idx]], dtype=float).reshape(-1, 2)
        sample = {'image': image, 'landmarks': landmarks}
        if self.transform:
            sample = self.transform(sample)
        return sample


class Rescale(object):
    """Rescale the image in a sample to a given size (nearest neighbour, numpy only)."""

    def __init__(self, output_size):
        assert isinstance(output_size, (int, tuple))
        self.output_size = output_size

    def __call__(self, sample):
        image, landmarks = sample['image'], sample['landmarks']
        h, w = image.shape[:2]
        if isinstance(self.output_size, int):
            if h > w:
                new_h, new_w = self.output_size * h / w, self.output_size
            else:
                new_h, new_w = self.output_size, self.output_size * w / h
        else:
            new_h, new_w = self.output_size
        new_h, new_w = int(new_h), int(new_w)
        rows = (np.arange(new_h) * h / new_h).astype(int)
        cols = (np.arange(new_w) * w / new_w).astype(int)
        img = image[rows][:, cols]
        # h and w are swapped for landmarks because for images,
        # x and y axes are axis 1 and 0 respectively
        landmarks = landmarks * [new_w / w, new_h / h]
        return {'image': img, 'landmarks': landmarks}


class RandomCrop(object):
    """Crop randomly the image in a sample."""

    def __init__(self, output_size):
        assert isinstance(output_size, (int, tuple))
        if isinstance(output_size, int):
            self.output_size = (output_size, output_size)
        else:
            assert len(output_size) == 2
            self.output_size = output_size

    def __call__(self, sample):
        image, landmarks = sample['image'], sample['landmarks']
        h, w = image.shape[:2]
        new_h, new_w = self.output_size
        top = np.random.randint(0, h - new_h + 1)
        left = np.random.randint(0, w - new_w + 1)
        image = image[top: top + new_h, left: left + new_w]
        landmarks = landmarks - [left, top]
        return {'image': image, 'landmarks': landmarks}


class ToTensor(object):
    """Convert ndarrays in sample to Tensors."""

    def __call__(self, sample):
        image, landmarks = sample['image'], sample['landmarks']
        # swap color axis because
        # numpy image: H x W x C
        # torch image: C x H x W
        image = image.transpose((2, 0, 1))
        return {'image': torch.from_numpy(image),
                'landmarks': torch.from_numpy(landmarks)}


class Compose(object):
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample


np.random.seed(0)
torch.manual_seed(0)
face_dataset = FaceLandmarksDataset(8)
for i, sample in enumerate(face_dataset):
    print(i, sample['image'].shape, sample['landmarks'].shape)
    if i == 3:
        break

scale = Rescale(32)
crop = RandomCrop(24)
composed = Compose([Rescale(32), RandomCrop(24)])
sample = face_dataset[1]
for tsfrm in [scale, crop, composed]:
    transformed_sample = tsfrm(sample)
    print(type(tsfrm).__name__, transformed_sample['image'].shape)
assert composed(sample)['image'].shape[:2] == (24, 24)

transformed_dataset = FaceLandmarksDataset(8, transform=Compose([Rescale(32), RandomCrop(24),
                                                                  ToTensor()]))
for i, sample in enumerate(transformed_dataset):
    print(i, sample['image'].size(), sample['landmarks'].size())
    assert sample['image'].dtype == torch.uint8 and sample['landmarks'].dtype == torch.float64
    if i == 3:
        break

dataloader = DataLoader(transformed_dataset, batch_size=4, shuffle=True, num_workers=0)
for i_batch, sample_batched in enumerate(dataloader):
    print(i_batch, sample_batched['image'].size(), sample_batched['landmarks'].size())
    assert sample_batched['image'].size() == torch.Size([4, 3, 24, 24])
    assert sample_batched['landmarks'].size() == torch.Size([4, 68, 2])
    images_batch = sample_batched['image'].float() / 255
    assert 0 <= images_batch.min() and images_batch.max() <= 1
assert i_batch == 1
assert face_dataset[torch.tensor(2)]['image'].shape == face_dataset[2]['image'].shape
