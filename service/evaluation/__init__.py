"""`jiyi eval`: resolution and recall measured on labelled sets, in a temporary home."""
