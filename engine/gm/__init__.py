"""The game master (seed 001 "El máster IA"): the structured world the engine reasons about.

One module per concern (architecture "Game master"): ``world`` (the ``gameMaster`` block),
``lint`` (its cross references), ``state`` (what changes in play), ``words`` (the lexicon data
files), ``moves`` (engine moves, zero model calls), ``perception`` (the master's scene context,
never a secret), ``dice`` (server rolls), ``risk`` (the offline master's reading of risky
acts), ``play`` (the dispatcher) and ``cli`` (``python -m engine gm``).

Keep this file free of imports: ``engine.world`` imports ``engine.gm.world`` while it loads.
"""
