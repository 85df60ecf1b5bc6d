"""Every ```python block of docs/python.md runs as written (from the repository root, in order,
each block in the namespace the blocks before it left)."""

import os
import re

from conftest import SOURCE_DIR


def blocks():
    with open(os.path.join(SOURCE_DIR, "docs", "python.md"), encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_docs_python_blocks_run(monkeypatch):
    monkeypatch.chdir(SOURCE_DIR)
    found = blocks()
    assert len(found) >= 3
    ns = {}
    for i, code in enumerate(found, 1):
        exec(compile(code, "docs/python.md block %d" % i, "exec"), ns)
