"""Sample data shipped with longtalk (written for it, not copied from any data set)."""
