"""The protocol's types: every row and record the socket carries, defined here and nowhere else.

`row` (the base, and how the facade hands a store row over), `desk`, `episodes`, `learning`, `recall`,
`upkeep` and `results` (what the facade's operations answer as JSON objects). The operations declare these
as their results (`service/ops/`, beside the pages that wrap them), the facade answers them, the remote
`Memory` decodes them and the console reads them. Nothing here imports the store: a store refactor reaches
the wire only through an edit here, and `jiyi schema` (its digest is tested against the protocol version)
shows it.
"""
