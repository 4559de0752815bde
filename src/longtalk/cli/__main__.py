"""``python -m longtalk.cli``: the same as the ``longtalk`` command."""

from longtalk.cli import main

main()
