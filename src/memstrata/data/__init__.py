"""Sample data shipped with memstrata (written for it, not copied from any data set)."""
