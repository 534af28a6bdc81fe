"""Compare: Measurements as tables, one per label, rows by sub_label (or stmt), columns by
description, laid out as torch.utils.benchmark.Compare does; colourised in a terminal, and
as HTML (colours kept) in Jupyter."""
import collections
import enum
import html
import math
import re

from . import common

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


class _Column:
    def __init__(self, grouped_results, time_scale, trim_significant_figures, highlight_warnings):
        self._grouped_results = grouped_results
        flat = [r for g in grouped_results for r in g]
        self._time_scale = time_scale
        self._trim = trim_significant_figures
        self._highlight = highlight_warnings and any(r.has_warnings for r in flat if r)
        leading = [math.ceil(math.log10(r.median / time_scale)) if r else None for r in flat]
        unit_digits = max(d for d in leading if d is not None)
        decimal_digits = min(max(m.significant_figures - d, 0) for d, m in zip(leading, flat)
                             if m is not None and d is not None) if self._trim else 1
        length = unit_digits + decimal_digits + (1 if decimal_digits else 0)
        self._template = f"{{:>{length}.{decimal_digits}f}}{{:>{7 if self._highlight else 0}}}"

    def get_results_for(self, group):
        return self._grouped_results[group]

    def num_to_str(self, value, estimated_sigfigs, spread):
        if value is None:
            return " " * len(self.num_to_str(1, estimated_sigfigs, None))
        if self._trim:
            value = common.trim_sigfig(value, estimated_sigfigs)
        return self._template.format(
            value, f" (! {spread * 100:.0f}%)" if self._highlight and spread is not None else "")


class _Row:
    def __init__(self, results, row_group, render_env, env_str_len, time_scale, colorize,
                 num_threads=None):
        self._results, self._row_group = results, row_group
        self._render_env, self._env_str_len = render_env, env_str_len
        self._time_scale, self._colorize, self._num_threads = time_scale, colorize, num_threads
        self._columns = ()

    def as_column_strings(self):
        first = next(r for r in self._results if r is not None)
        env = (f"({first.env})" if self._render_env else "").ljust(self._env_str_len + 4)
        out = ["  " + env + first.as_row_name]
        for m, col in zip(self._results, self._columns):
            out.append(col.num_to_str(None, 1, None) if m is None else col.num_to_str(
                m.median / self._time_scale, m.significant_figures,
                m.iqr / m.median if m.has_warnings else None))
        return out

    @staticmethod
    def color_segment(segment, value, best):
        if value <= best * 1.01 or value <= best + 100e-9:
            return BEST + BOLD + segment + TERMINATE * 2
        if value <= best * 1.1:
            return GOOD + BOLD + segment + TERMINATE * 2
        if value >= best * 5:
            return VERY_BAD + BOLD + segment + TERMINATE * 2
        if value >= best * 2:
            return BAD + segment + TERMINATE * 2
        return segment

    def row_separator(self, width):
        return [] if self._num_threads is None else [f"{self._num_threads} threads: "
                                                     .ljust(width, "-")]

    def finalize_column_strings(self, strings, widths):
        best = [-1 for _ in strings]
        if self._colorize == Colorize.ROWWISE:
            best = [min(r.median for r in self._results if r is not None)] * len(strings)
        elif self._colorize == Colorize.COLUMNWISE:
            best = [min((r.median for r in c.get_results_for(self._row_group) if r is not None),
                        default=None) for c in self._columns]
        row = [strings[0].ljust(widths[0])]
        for s, w, r, b in zip(strings[1:], widths[1:], self._results, best):
            s = s.center(w)
            if self._colorize != Colorize.NONE and r is not None and b is not None:
                s = self.color_segment(s, r.median, b)
            row.append(s)
        return row


class Table:
    """One label's measurements, laid out."""

    def __init__(self, results, colorize, trim_significant_figures, highlight_warnings):
        if len({r.label for r in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results, self._colorize = results, colorize
        self._trim, self._highlight = trim_significant_figures, highlight_warnings
        self.label = results[0].label
        self.time_unit, self.time_scale = common.select_unit(min(r.median for r in results))
        self.row_keys = common.ordered_unique([self.row_fn(r) for r in results])
        self.row_keys.sort(key=lambda k: k[:2])          # threads, env; stmt order kept
        self.column_keys = common.ordered_unique([self.col_fn(r) for r in results])
        self.rows, self.columns = self._populate()

    @staticmethod
    def row_fn(m):
        return m.num_threads, m.env, m.as_row_name

    @staticmethod
    def col_fn(m):
        return m.description

    def _populate(self):
        ordered = [[None] * len(self.column_keys) for _ in self.row_keys]
        row_pos = {k: i for i, k in enumerate(self.row_keys)}
        col_pos = {k: i for i, k in enumerate(self.column_keys)}
        for r in self.results:
            ordered[row_pos[self.row_fn(r)]][col_pos[self.col_fn(r)]] = r
        envs = {r.env for r in self.results}
        render_env = len(envs) > 1
        env_len = max(len(e) for e in envs) if render_env else 0
        rows, groups, prior_threads, prior_env, group = [], [], -1, "", -1
        for (threads, env, _), row in zip(self.row_keys, ordered):
            transition = threads != prior_threads
            if transition:
                prior_threads, prior_env, group = threads, "", group + 1
                groups.append([])
            rows.append(_Row(row, group, render_env and env != prior_env, env_len,
                             self.time_scale, self._colorize,
                             threads if transition else None))
            groups[-1].append(row)
            prior_env = env
        columns = tuple(_Column([tuple(row[i] for row in g) for g in groups], self.time_scale,
                                self._trim, self._highlight)
                        for i in range(len(self.column_keys)))
        for r in rows:
            r._columns = columns
        return tuple(rows), columns

    def render(self):
        string_rows = [[""] + self.column_keys] + [r.as_column_strings() for r in self.rows]
        n = max(len(r) for r in string_rows)
        for r in string_rows:
            r.extend([""] * (n - len(r)))
        widths = [max(len(j) for j in col) for col in zip(*string_rows)]
        lines = ["  |  ".join(s.center(w) for s, w in zip(string_rows[0], widths))]
        width = len(lines[0])
        for strings, row in zip(string_rows[1:], self.rows):
            lines.extend(row.row_separator(width))
            lines.append("  |  ".join(row.finalize_column_strings(strings, widths)))
        warn = self._highlight and any(r.has_warnings for r in self.results)
        nl = "\n"
        return f"""
[{(' ' + (self.label or '') + ' ').center(width - 2, '-')}]
{nl.join(lines)}

Times are in {common.unit_to_english(self.time_unit)}s ({self.time_unit}).
{'(! XX%) Measurement has high variance, where XX is the IQR / median * 100.' + nl if warn else ""}"""[1:]


class Compare:
    """Print many Measurements as tables: str(compare) or compare.print(); in Jupyter the
    table shows as HTML. Replicates of a task (same TaskSpec) are merged first."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self):
        return "\n".join(self._render())

    def extend_results(self, results):
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        """Green: the fastest (per column, or per row); blue: within 10%; red: 2x, 5x slower."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        self._highlight_warnings = True

    def print(self):
        print(str(self))

    def _render(self):
        groups = collections.defaultdict(list)
        for r in common.Measurement.merge(self._results):
            groups[r.label].append(r)
        return [Table(g, self._colorize, self._trim_significant_figures,
                      self._highlight_warnings).render() for g in groups.values()]

    def _repr_html_(self):
        return "<pre>" + _ansi_to_html(html.escape(str(self))) + "</pre>"


_STYLE = {"92": "color:#1a9f1a", "34": "color:#2160c4", "91": "color:#d03030",
          "31": "color:#b00000", "1": "font-weight:bold", "2": "opacity:0.7"}


def _ansi_to_html(text):
    """Terminal colour codes as <span style=...>: each code opens a span, a reset closes them."""
    out, open_spans = [], 0
    for piece in re.split(r"(\033\[\d+m)", text):
        code = re.fullmatch(r"\033\[(\d+)m", piece)
        if not code:
            out.append(piece)
        elif code.group(1) == "0":
            out.append("</span>" * open_spans)
            open_spans = 0
        else:
            out.append(f'<span style="{_STYLE.get(code.group(1), "")}">')
            open_spans += 1
    return "".join(out) + "</span>" * open_spans
