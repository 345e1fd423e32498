/**
 * Domain ownership as one pod sees it now. The frontier asks `ownerOf` on every enqueue and
 * claim; a pod wakes its work loop on `onChange`. {@link Membership} implements it over the
 * consistent-hash ring of the pod registry; a test or a pod without the registry may pass any
 * object of this shape (e.g. one owner for every domain).
 */
export interface Assignment {
  /** The id of the pod that owns `domain` (its due index gets the domain's hosts). */
  ownerOf(domain: string): string;
  /**
   * Calls `listener` after every change that may have given this pod new due work: a new
   * owner map, or due-index entries moved between pods. Returns the unsubscribe function.
   */
  onChange(listener: () => void): () => void;
}
