"""A phone agent's run (start, event, finish) and the episode archive it fills."""

from __future__ import annotations

from service.memory.memory import EpisodeFilter, Memory
from service.ops import runs
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable

TABLE = MethodTable("runs and episodes")


@TABLE.op(runs.EPISODE_LIST)
def episode_list(memory: Memory, args: runs.EpisodeListArgs, _context: CallContext) -> runs.EpisodePage:
    f = EpisodeFilter(
        text=args.text,
        app=args.app,
        device=args.device,
        success=args.success,
        since=args.since,
        until=args.until,
        revoked=args.revoked,
    )
    rows = memory.runs.list_episodes(f, limit=args.limit + 1, offset=args.offset, after=args.key)
    return runs.EpisodePage(
        episodes=rows[: args.limit],
        next_offset=args.offset + args.limit if len(rows) > args.limit else None,
        total=memory.runs.count_episodes(f) if args.total else None,
    )


@TABLE.op(runs.EPISODE_REVOKE)
def episode_revoke(memory: Memory, args: runs.RevokeArgs, _context: CallContext) -> runs.EpisodeRevoked:
    change = memory.runs.revoke_episode(args.run_id, reason=args.reason, actor="user")  # the person's (declared)
    return runs.EpisodeRevoked(run_id=args.run_id, revoked=True, change=change)


@TABLE.op(runs.EPISODE_RESTORE)
def episode_restore(memory: Memory, args: runs.RestoreArgs, _context: CallContext) -> runs.EpisodeRevoked:
    change = memory.runs.restore_episode(args.run_id, actor="user")  # the person's (declared)
    return runs.EpisodeRevoked(run_id=args.run_id, revoked=False, change=change)
