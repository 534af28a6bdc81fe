"""torch.backends.cudnn: labkit never calls cuDNN; the flags are kept for programs that set them."""
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None
