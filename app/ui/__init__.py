"""The editor's desktop application: main window, panels, actions, dialogs, autosave."""
