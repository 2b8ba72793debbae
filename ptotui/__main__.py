from ptotui.cli import main

raise SystemExit(main())
