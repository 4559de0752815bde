"""Pure, synchronous logic: no I/O, no network, no database."""
