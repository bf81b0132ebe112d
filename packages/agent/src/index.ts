/**
 * tool-search agent: the executor (a ReAct loop on `effect/ai` that re-reads the visible tools every
 * iteration), forks, activation policies across turns, session stores with eviction, approval,
 * token accounting, the event stream, and a scripted model for tests and demos.
 *
 * @since 0.1.0
 */

/** The ReAct loop, turns and forks. */
export * as Executor from "./Executor.js"
/** The events of a turn. */
export * as TurnEvent from "./TurnEvent.js"
/** The tools of one execution unit as an `effect/ai` Toolkit, and the one way their calls run. */
export * as UnitToolkit from "./UnitToolkit.js"
/** What a new turn starts with: turn, session, latest, history. */
export * as ActivationPolicy from "./ActivationPolicy.js"
/** Where activation survives between turns. */
export * as SessionStore from "./SessionStore.js"
/** The agent's settings: activation across turns, eviction, the bounds on tool calls. */
export * as AgentConfig from "./AgentConfig.js"
/** When a session's state is dropped. */
export * as Eviction from "./Eviction.js"
/** Approval of individual tool calls. */
export * as Approval from "./Approval.js"
/** Token counting with a real tokenizer. */
export * as TokenCounter from "./TokenCounter.js"
/** A deterministic scripted LanguageModel. */
export * as ScriptedModel from "./ScriptedModel.js"
