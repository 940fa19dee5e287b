"""The rules of Michigan Rummy, Bonanza and Tripoley: cards, events and the engine, pure Python with no I/O.

Nothing here imports anything of this project outside ``companion.rules``; the camera,
the board, the pages and the store around it speak to it only in events.
"""
