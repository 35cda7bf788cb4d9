"""The App-KB: every app a device has and every name it is called by, in trust order, with the
history and undo of each name, implicit-alias evidence and dream's corrections and clean-up."""
