"""The closure check's rules, one concern per module (issue 34 §1); ``engine.gm.closure`` runs
them. ``text`` and ``tokens`` read a narration, ``lexicon`` holds the word classes, ``entities``
resolves what it refers to, ``events`` what it claims happened, ``targets`` what a tool call was
about; each remaining module is one rule, ``claims`` the master's structured claims."""
