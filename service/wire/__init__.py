"""The protocol's rows: every row and record the facade answers over the socket is defined here.

`row` (the base, and how the facade hands a store row over), `desk`, `episodes`, `learning`, `recall`,
`upkeep`, `appkb` and `results` (what the facade's operations answer as JSON objects). An operation's own
envelope (a page, a receipt, the App-KB's replies with their conversions) is declared beside it in
`service/ops/`; nothing the socket's operations declare is the store's. The facade answers these, the remote
`Memory` decodes them and the console reads them. Nothing here imports the store: a store refactor reaches the
wire only through an edit here, and `jiyi schema` (its digest is tested against the protocol version) shows it.
"""
