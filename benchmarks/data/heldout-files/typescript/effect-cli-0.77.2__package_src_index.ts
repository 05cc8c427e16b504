/**
 * @since 1.0.0
 */
export * as Args from "./Args.js"

/**
 * @since 1.0.0
 */
export * as AutoCorrect from "./AutoCorrect.js"

/**
 * @since 1.0.0
 */
export * as BuiltInOptions from "./BuiltInOptions.js"

/**
 * @since 1.0.0
 */
export * as CliApp from "./CliApp.js"

/**
 * @since 1.0.0
 */
export * as CliConfig from "./CliConfig.js"

/**
 * @since 1.0.0
 */
export * as Command from "./Command.js"

/**
 * @since 1.0.0
 */
export * as CommandDescriptor from "./CommandDescriptor.js"

/**
 * @since 1.0.0
 */
export * as CommandDirective from "./CommandDirective.js"

/**
 * @since 2.0.0
 */
export * as ConfigFile from "./ConfigFile.js"

/**
 * @since 1.0.0
 */
export * as HelpDoc from "./HelpDoc.js"

/**
 * @since 1.0.0
 */
export * as Options from "./Options.js"

/**
 * @since 1.0.0
 */
export * as Primitive from "./Primitive.js"

/**
 * @since 1.0.0
 */
export * as Prompt from "./Prompt.js"

/**
 * @since 1.0.0
 */
export * as Usage from "./Usage.js"

/**
 * @since 1.0.0
 */
export * as ValidationError from "./ValidationError.js"

/**
 * @since 1.0.0
 */
export * as Span from "./HelpDoc/Span.js"
