"""Light and dark palettes for the console (or the platform's own)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

THEMES = ("system", "light", "dark")


def apply_theme(app: QApplication, theme: str) -> None:
    """Set the application palette: "light", "dark", or the style's standard one ("system")."""
    if theme not in THEMES:
        theme = "system"
    if theme == "system":
        app.setPalette(app.style().standardPalette())
        return
    dark = theme == "dark"
    colors = {
        QPalette.ColorRole.Window: "#202124" if dark else "#f6f6f6",
        QPalette.ColorRole.WindowText: "#e8eaed" if dark else "#1f1f1f",
        QPalette.ColorRole.Base: "#171717" if dark else "#ffffff",
        QPalette.ColorRole.AlternateBase: "#262626" if dark else "#f2f2f2",
        QPalette.ColorRole.Text: "#e8eaed" if dark else "#1f1f1f",
        QPalette.ColorRole.Button: "#2d2e31" if dark else "#eeeeee",
        QPalette.ColorRole.ButtonText: "#e8eaed" if dark else "#1f1f1f",
        QPalette.ColorRole.Highlight: "#3d6fd6" if dark else "#2f6fde",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#2d2e31" if dark else "#ffffdc",
        QPalette.ColorRole.ToolTipText: "#e8eaed" if dark else "#1f1f1f",
        QPalette.ColorRole.PlaceholderText: "#8a8d91" if dark else "#8c8c8c",
    }
    palette = QPalette()
    for role, color in colors.items():
        palette.setColor(role, QColor(color))
    app.setPalette(palette)
