// The live sessions of each authenticated principal in this process, least recently active first (sessions.maxPerPrincipal).

/** Which live sessions each principal holds here, in the order they were last active. */
export class PrincipalSessions {
  private readonly byPrincipal = new Map<string, Set<string>>();

  /** Moves a session to the most recently active end of its principal's list. */
  markActive(principal: string, id: string): void {
    let owned = this.byPrincipal.get(principal);
    if (owned === undefined) {
      owned = new Set();
      this.byPrincipal.set(principal, owned);
    }
    owned.delete(id);
    owned.add(id);
  }

  /** Forgets a session that ended. */
  forget(principal: string, id: string): void {
    const owned = this.byPrincipal.get(principal);
    owned?.delete(id);
    if (owned?.size === 0) this.byPrincipal.delete(principal);
  }

  /** Forgets and returns the principal's least recently active sessions past `cap`, oldest first. */
  takePastCap(principal: string, cap: number): string[] {
    const owned = this.byPrincipal.get(principal);
    const past: string[] = [];
    while (owned !== undefined && owned.size > cap) {
      const oldest = owned.values().next().value as string;
      owned.delete(oldest);
      past.push(oldest);
    }
    return past;
  }
}
