/** Placeholder until the package lands. @since 0.1.0 */
export {}
