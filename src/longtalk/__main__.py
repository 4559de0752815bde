"""``python -m longtalk``: the same as the ``longtalk`` command."""

from longtalk.cli import main

main()
