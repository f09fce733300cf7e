"""The floor: games, stakes, collection schedules, tables, seats, players, buttons, hands and the
waiting lists (above the engine and the kernel; docs/floor.md). The modules: docs/layers.md.
"""
