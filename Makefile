# Jiyi: `make run` opens the console, `make test` checks everything. Both set up from nothing.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEBS   := libgl1 libegl1 libfontconfig1 libglib2.0-0 libdbus-1-3 libxkbcommon0 fonts-wqy-microhei
# What Qt's xcb plugin loads to open a window on an X11 desktop (`ldd` on libqxcb.so lists them).
XCB    := libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-randr0 libxcb-render-util0 \
          libxcb-shape0 libxcb-xfixes0 libxcb-xinerama0 libxcb-xkb1 libxkbcommon-x11-0 libx11-xcb1
DEBS   += $(XCB)

.PHONY: run install uninstall test lint bench screenshots system-deps clean bundle bundle-check

$(VENV)/.stamp-run: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.stamp-test: pyproject.toml $(VENV)/.stamp-run
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

# Headless Qt needs a few shared libraries, and Chinese labels need a CJK font
# (without one every label renders as boxes). Install what is missing.
system-deps:
	@missing=""; for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if ! command -v apt-get >/dev/null 2>&1; then echo "make: please install:$$missing" >&2; exit 1; fi; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; \
	  else echo "make: need root to install:$$missing" >&2; exit 1; fi; \
	  echo "make: installing$$missing"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

run: system-deps $(VENV)/.stamp-run
	$(VENV)/bin/jiyi $(ARGS)

# `make install`: Jiyi in an environment of its own (as pipx or `uv tool install .` would make), and `jiyi` on
# the PATH as $(PREFIX)/bin/jiyi. Run it again to upgrade from the checkout; `make uninstall` removes both.
PREFIX       ?= $(HOME)/.local
INSTALL_VENV ?= $(PREFIX)/lib/jiyi
INSTALL_FROM ?= .
install: system-deps
	test -x $(INSTALL_VENV)/bin/python || $(PYTHON) -m venv $(INSTALL_VENV)
	$(INSTALL_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(INSTALL_VENV)/bin/python -m pip install --quiet --upgrade $(PIP_ARGS) $(INSTALL_FROM)
	mkdir -p $(PREFIX)/bin
	ln -sfn $(INSTALL_VENV)/bin/jiyi $(PREFIX)/bin/jiyi
	@echo "installed $(PREFIX)/bin/jiyi (its environment: $(INSTALL_VENV))"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "add $(PREFIX)/bin to your PATH to call it as jiyi";; esac
	@echo "then: jiyi install-desktop puts the console in the desktop's menu and writes the service's user unit"

uninstall:
	rm -f $(PREFIX)/bin/jiyi
	if [ -f $(INSTALL_VENV)/pyvenv.cfg ]; then rm -rf $(INSTALL_VENV); fi

# mypy checks the code three times: as Linux, macOS and Windows see it (sys.platform branches, os and socket
# names that exist on one system only); each platform keeps its own cache, so a rerun is quick.
lint: $(VENV)/.stamp-test
	$(VENV)/bin/ruff check gui store recall service resources tests bench packaging
	$(VENV)/bin/ruff format --check gui store recall service resources tests bench packaging
	$(VENV)/bin/mypy
	$(VENV)/bin/mypy --platform darwin --cache-dir .mypy_cache/darwin
	$(VENV)/bin/mypy --platform win32 --cache-dir .mypy_cache/win32
	$(VENV)/bin/lint-imports

# The suite also opens the real console on an Xvfb display (tests/gui/test_real_console.py), and
# runs the store and service tests on a PostgreSQL server it starts from Debian's binaries.
# It runs on every core (pytest-xdist): each worker has its own PostgreSQL server, temporary folders,
# sockets and Xvfb display; tests marked `xdist_group` share a worker (one module-wide server or build).
# `make test JOBS=0` runs it in one process.
JOBS ?= auto
test: DEBS += xvfb x11-utils postgresql desktop-file-utils appstream
test: system-deps $(VENV)/.stamp-test lint
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/pytest -q -n $(JOBS) --dist loadgroup $(PYTEST_ARGS)

# -P: a script's own folder is not put first on the import path, so bench/ never hides a package.
bench: $(VENV)/.stamp-run
	$(PY) -P bench/resolve.py
	$(PY) -P bench/service_socket.py
	$(PY) -P bench/params_decode.py
	$(PY) -P bench/episode_recall.py
	$(PY) -P bench/recall_growth.py
	$(PY) -P bench/recall_calibration.py
	$(PY) -P bench/leave_one_out.py
	$(PY) -P bench/recall_orders.py
	$(PY) -P bench/memory_recall.py
	$(PY) -P bench/mcp.py
	$(PY) -P bench/taskwizard_reimport.py --runs 5000
	$(PY) -P bench/learning.py
	$(PY) -P bench/ingest.py
	$(PY) -P bench/freed_memory.py
	QT_QPA_PLATFORM=offscreen $(PY) -P bench/gui.py --episodes 10000

# Renders every console page from a fresh demo home into docs/screenshots/ (the README shows them), the console
# attached to a `jiyi serve` started on that home, as on a desktop where the service is installed.
screenshots: system-deps $(VENV)/.stamp-run
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/jiyi screenshots --attach --out docs/screenshots

# `make bundle`: Jiyi as an app that needs no Python (docs/install.md, The app): a PyInstaller one-folder build in
# dist/jiyi/ (the program: dist/jiyi/jiyi), built in an environment of its own from this checkout as it is, then
# checked in a bare environment (packaging/bundle/check.py: env -i, no Python on the PATH): --version, serve
# answering health and embedding with both models, mcp, the console under Xvfb with only the font it ships.
# ~4-6 min from nothing on 2 cores; not part of `make test` (`make bundle-check` checks a built app again).
BUNDLE_VENV := .venv-bundle
$(BUNDLE_VENV)/.stamp: pyproject.toml
	test -x $(BUNDLE_VENV)/bin/python || $(PYTHON) -m venv $(BUNDLE_VENV)
	$(BUNDLE_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(BUNDLE_VENV)/bin/python -m pip install --quiet '.[bundle]'
	touch $@

bundle: DEBS += xvfb x11-utils
bundle: system-deps $(BUNDLE_VENV)/.stamp
	$(BUNDLE_VENV)/bin/python -m pip install --quiet --no-deps --force-reinstall .  # the checkout as it is now
	$(BUNDLE_VENV)/bin/pyinstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller \
	  packaging/bundle/jiyi.spec
	$(MAKE) --no-print-directory bundle-check

bundle-check: DEBS += xvfb x11-utils
bundle-check: system-deps
	$(BUNDLE_VENV)/bin/python -P packaging/bundle/check.py dist/jiyi/jiyi --baseline $(BUNDLE_VENV)/bin/jiyi

clean:
	rm -rf $(VENV) $(BUNDLE_VENV) build/pyinstaller dist/jiyi .pytest_cache .mypy_cache .ruff_cache
