"""The three directors (seed 003 "Stage Whisper": context isolation; issue 12 §1, §5, §6).

A world opts in with ``gameMaster.settings.directors``. Each action the master would play goes
through three stages instead of one: the **Game Director** runs the mechanics (the tool loop of
``engine.gm.loop``) and decides whether the input only continues the scene; the **Story
Director**, which sees everything, writes a ``<synopsis>`` when the plot moves (skipped on plain
talk); the **Scene Director** plays the scene from the synopsis with a context built from types
that have no field for a secret. One module per concern: ``records`` (what is kept in the GM
state), ``public`` (the secret-free types), ``projection`` (the one function from the full world
to them), ``stage`` (the Scene Director's request and reply), ``story`` and ``synopsis`` (the
Story Director's request and its parsed output), ``game`` (the Game Director's brief and the
route), ``knowledge`` (secrets, who knows them, scene end), ``leaks`` (the detector),
``search`` (older memories), ``prompts`` (the words) and ``pipeline`` (the turn).

Keep this file free of imports: ``engine.gm.state`` imports ``engine.gm.directors.records``.
"""
