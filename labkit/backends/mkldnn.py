"""torch.backends.mkldnn: labkit does not use oneDNN; the flag is kept for programs that set it."""
enabled = True


def is_available():
    return False
