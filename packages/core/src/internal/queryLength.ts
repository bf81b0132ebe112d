/**
 * The longest query accepted, in characters: the one bound of a tool query (`Query.parse`) and of a
 * resource query, so a model's query of either kind is refused at the same length.
 *
 * @internal
 */
export const MAX_LENGTH = 2_000
