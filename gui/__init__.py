"""The 记忆 console: Qt widgets only; every read and write goes through `Memory`."""
