"""Import and export of a TaskWizard `memory/` directory (App-KB and episode archive), lossless."""
