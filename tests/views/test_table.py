"""The tabwriter port: column blocks, minimum widths and padding as Go's text/tabwriter.

Cases follow go/src/text/tabwriter/tabwriter_test.go (with padchar ' ' and no flags) and
kubectl's two settings (get: minwidth 6, padding 3; describe: minwidth 0, padding 2).
"""

from __future__ import annotations

import pytest

from ksandbox.views.table import format_table, tabwrite

CASES = [
    ("empty text stays empty", "", 0, 1, ""),
    ("a line without tabs is copied", "hello\n", 0, 1, "hello\n"),
    ("cells are padded to the widest in the column",
     "a\tb\tc\naa\tbbb\tcccc\naaa\tbbbb\n", 0, 1,
     "a   b   c\naa  bbb cccc\naaa bbbb\n"),
    ("go's case 1b: minwidth 8", "a\tb\tc\naa\tbbb\tcccc\naaa\tbbbb\n", 8, 1,
     "a       b       c\naa      bbb     cccc\naaa     bbbb\n"),
    ("minwidth widens narrow columns", "a\tb\n", 8, 1, "a       b\n"),
    ("the last cell of a line is never padded", "x\ty\t\n", 0, 2, "x  y  \n"),
    ("a line with fewer cells ends the column block",
     "Name:\tweb\nPod Template:\n  Labels:\tapp=web\n", 0, 2,
     "Name:  web\nPod Template:\n  Labels:  app=web\n"),
    ("continuation lines align with the block they are in",
     "Labels:\ta=b\n\tc=d\nAnnotations:\t<none>\n", 0, 2,
     "Labels:       a=b\n              c=d\nAnnotations:  <none>\n"),
    ("nested columns are computed per block",
     "a\tb\tc\naaaa\tb\nx\tyyyy\tz\n", 0, 1,
     "a    b c\naaaa b\nx    yyyy z\n"),
    ("empty cells are padded too", "\tb\nccc\td\n", 0, 1, "    b\nccc d\n"),
    ("text without a final newline keeps none", "a\tb\naa\tb", 0, 1, "a  b\naa b"),
]


@pytest.mark.parametrize("name,text,minwidth,padding,want", CASES, ids=[c[0] for c in CASES])
def test_tabwrite(name, text, minwidth, padding, want):
    assert tabwrite(text, minwidth=minwidth, padding=padding) == want


def test_kubectl_get_layout_uses_minwidth_6_and_padding_3():
    out = format_table([["NAME", "STATUS", "AGE"], ["a", "Ready", "5m"]])
    assert out == "NAME   STATUS   AGE\na      Ready    5m\n"
