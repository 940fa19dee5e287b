"""The ``companion`` command and what it runs: configuration, the table loop, the demo, the simulator.

The shell on top of every layer; nothing outside ``companion.app`` imports it.
"""
