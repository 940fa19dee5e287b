"""The fixtures the test modules share, from the helper modules that define them."""

pytest_plugins = ["browser_helpers"]  # browser, table, server: the pages in a real Chromium
