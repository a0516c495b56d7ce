"""Batch evaluations of the narrator and the game master (seed 001 "Cómo se mide la calidad":
"un recorrido fijo de 10 acciones por modelo … un jugador automático … el 40 % de las veces
intenta «liarla» … detectores gratuitos y un juez modelo clasifican los errores"; GAME_MASTER.md
§12, decisions 22–23).

Pure engine code: the automatic player (``player``), the route and the game runner
(``route``, ``runner``), the free detectors (``detectors``, ``closure_check``), the judge and
its agreement with labels (``judge``, ``kappa``, ``labelled``), the report (``report``) and its
plots (``plots``). The studio stores results and runs them on Celery (``studio.evaluations``).
"""
