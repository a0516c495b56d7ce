"""Studio views, one module per noun; the generic list views are in ``items``."""
