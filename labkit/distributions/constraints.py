"""The checks behind validate_args: each returns (a bool tensor, the constraint's torch name)."""


def real(v):
    return v == v, "Real()"


def positive(v):
    return v > 0, "GreaterThan(lower_bound=0.0)"


def unit_interval(v):
    return (v >= 0) & (v <= 1), "Interval(lower_bound=0.0, upper_bound=1.0)"


def boolean(v):
    return (v == 0) | (v == 1), "Boolean()"


def simplex(v):
    ok = (v >= 0).all(-1) & ((v.sum(-1) - 1).abs() < 1e-6)
    return ok, "Simplex()"


def integer_interval(high):
    def check(v):
        return (v % 1 == 0) & (v >= 0) & (v <= high), \
            f"IntegerInterval(lower_bound=0, upper_bound={high})"
    return check


def interval(low, high):
    def check(v):
        return (low <= v) & (v <= high), f"Interval(lower_bound={low}, upper_bound={high})"
    return check
