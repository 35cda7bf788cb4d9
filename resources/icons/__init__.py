"""Jiyi's icon: `jiyi.svg` and PNG renderings of it (`jiyi-<size>.png`), made by `packaging/make_icons.py`."""
