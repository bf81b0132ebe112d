/**
 * tool-search agent: the executor (a ReAct loop on `effect/ai` that re-reads the visible tools every
 * iteration), forks, activation policies across turns, session stores with eviction, approval,
 * token accounting, the event stream, and a scripted model for tests and demos.
 *
 * The modules, by category:
 *
 * - **execution** — `Executor`, `TurnEvent`, `UnitToolkit`
 * - **sessions** — `ActivationPolicy`, `SessionStore`, `Eviction`
 * - **policies** — `Approval`
 * - **accounting** — `TokenCounter`
 * - **settings** — `AgentConfig`
 * - **testing** — `ScriptedModel`
 *
 * Everything else is in `internal/` and is not part of the API.
 *
 * @since 0.1.0
 */

// -----------------------------------------------------------------------------
// Execution
// -----------------------------------------------------------------------------

/**
 * The ReAct loop, turns and forks.
 *
 * @since 0.1.0
 * @category execution
 */
export * as Executor from "./Executor.js"

/**
 * The events of a turn.
 *
 * @since 0.1.0
 * @category execution
 */
export * as TurnEvent from "./TurnEvent.js"

/**
 * The tools of one execution unit as an `effect/ai` Toolkit, and the one way their calls run.
 *
 * @since 0.2.0
 * @category execution
 */
export * as UnitToolkit from "./UnitToolkit.js"

// -----------------------------------------------------------------------------
// Sessions
// -----------------------------------------------------------------------------

/**
 * What a new turn starts with: turn, session, latest, history.
 *
 * @since 0.1.0
 * @category sessions
 */
export * as ActivationPolicy from "./ActivationPolicy.js"

/**
 * Where activation survives between turns.
 *
 * @since 0.1.0
 * @category sessions
 */
export * as SessionStore from "./SessionStore.js"

/**
 * When a session's state is dropped.
 *
 * @since 0.1.0
 * @category sessions
 */
export * as Eviction from "./Eviction.js"

// -----------------------------------------------------------------------------
// Policies
// -----------------------------------------------------------------------------

/**
 * Approval of individual tool calls.
 *
 * @since 0.1.0
 * @category policies
 */
export * as Approval from "./Approval.js"

// -----------------------------------------------------------------------------
// Accounting
// -----------------------------------------------------------------------------

/**
 * Token counting with a real tokenizer.
 *
 * @since 0.1.0
 * @category accounting
 */
export * as TokenCounter from "./TokenCounter.js"

// -----------------------------------------------------------------------------
// Settings
// -----------------------------------------------------------------------------

/**
 * The agent's settings: activation across turns, eviction, the bounds on tool calls.
 *
 * @since 0.2.0
 * @category settings
 */
export * as AgentConfig from "./AgentConfig.js"

// -----------------------------------------------------------------------------
// Testing
// -----------------------------------------------------------------------------

/**
 * A deterministic scripted LanguageModel.
 *
 * @since 0.1.0
 * @category testing
 */
export * as ScriptedModel from "./ScriptedModel.js"
