"""What the service does differently on Linux, macOS and Windows; everything else in `service` is portable.

- `address.py`: where a home's service listens. One socket per home, named from the home's real path: a Unix
  socket in the user's private runtime folder, or a named pipe on Windows.
- `user_service.py`: how the service starts at login. A systemd user unit (Linux), a launchd LaunchAgent (macOS),
  a Task Scheduler task (Windows): the text `jiyi install-desktop` writes, and where.
- `process.py`: a process's priority and its own process group (the console's private service).
- The host's transport, which needs Qt and so lives in the socket host: `service/rpc/transport.py` (descriptors
  and `QSocketNotifier`s on Unix, `QLocalSocket` over a named pipe on Windows). The stdlib agent client keeps its
  own copy of the address and opens a named pipe with plain file I/O (`service/client.py`).

The store's half of the seam (the home's lock, private-file checks, open flags, positioned I/O, the file system)
is `store/core/home/platform.py`. docs/install.md ("What differs by platform, and what is verified") says what of
each is checked here and what is not.
"""
